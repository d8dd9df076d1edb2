import { TemplateError } from '../errors';
import { checkCampaignContent, renderFiringVariables, type FiringValues } from './firing';
import { parseTemplate } from './template';

const VALUES: FiringValues = { 'firing.date': '2025-03-31', 'firing.time': '09:00', 'firing.id': '7-1743404400000' };

describe('renderFiringVariables', () => {
  it('fills the firing variables of a template content; a content naming no recipient variable becomes plain', () => {
    expect(
      renderFiringVariables(
        {
          body: 'Digest of {{firing.date}} at {{ firing.time | default: "x" }} ({{firing.id}})',
          title: 'News {{firing.date}}',
          template: true,
        },
        VALUES,
      ),
    ).toEqual({ body: 'Digest of 2025-03-31 at 09:00 (7-1743404400000)', title: 'News 2025-03-31' });
  });

  it("keeps the recipient's placeholders as written, and the content a template", () => {
    const rendered = renderFiringVariables(
      { body: 'Hi {{ region | default: "there" }}, news of {{firing.date}}', template: true },
      VALUES,
    );
    expect(rendered).toEqual({ body: 'Hi {{ region | default: "there" }}, news of 2025-03-31', template: true });
    // What the executors will parse per recipient.
    expect(parseTemplate(rendered.body).slots).toHaveLength(1);
  });

  it('leaves a plain content alone: without the template flag braces are text', () => {
    const plain = { body: 'Use {{firing.date}} {{ not a variable', title: 't' };
    expect(renderFiringVariables(plain, VALUES)).toBe(plain);
  });
});

describe('checkCampaignContent and tasks', () => {
  it('accepts the firing variables in a campaign content, names field and position otherwise', () => {
    expect(() => checkCampaignContent({ body: '{{firing.date}} {{uin}}', template: true })).not.toThrow();
    expect(() => checkCampaignContent({ body: '{{ not a variable', template: false as unknown as true })).not.toThrow();
    try {
      checkCampaignContent({ body: 'ok', title: 'on {{firing.day}}', template: true });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(TemplateError);
      expect((error as TemplateError).details).toMatchObject({
        field: 'template.content.title',
        position: 5,
        found: 'firing.day',
      });
    }
  });

  it("refuses firing variables in a task's content: a task has no firing", () => {
    expect(() => parseTemplate('{{firing.date}}')).toThrow(TemplateError);
  });
});

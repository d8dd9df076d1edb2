import { emptyForm, formFieldOf, toCreateBody, validateBroadcast } from '../src/lib/broadcast-form';
import { campaignOfTask } from '../src/lib/campaign-of';

/** The pure parts behind issue 22's speed field and the task page's link to its campaign. */
describe('new-broadcast speed', () => {
  const ready = { ...emptyForm('acme'), listId: 'l_1', body: 'hello' };

  it('sends a typed speed as a number and none when empty', () => {
    expect(toCreateBody({ ...ready, speed: '2000' }).speed).toBe(2000);
    expect('speed' in toCreateBody(ready)).toBe(false);
  });

  it.each(['0', '-5', '1.5', 'fast', '100000001'])('refuses %s recipients/s under the field', (speed) => {
    expect(validateBroadcast({ ...ready, speed }, Date.now()).speed).toMatch(/recipients per second/);
  });

  it("puts the server's speed errors (422 over maxSpeed) on the field", () => {
    expect(formFieldOf('speed')).toBe('speed');
  });
});

describe('the campaign that fired a task', () => {
  it('reads the id off a firing key and nothing off other keys', () => {
    expect(campaignOfTask('campaign:7:1763779200000')).toBe(7);
    expect(campaignOfTask('api:acme:k1')).toBeNull();
    expect(campaignOfTask('campaign:x:1')).toBeNull();
    expect(campaignOfTask(undefined)).toBeNull();
  });
});

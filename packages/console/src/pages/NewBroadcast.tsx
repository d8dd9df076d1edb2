import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, newIdempotencyKey } from '../api/client';
import { cloneOf } from '../lib/broadcast-form';
import { operatorMessage } from '../lib/operator-words';
import type { ConfirmationRequired, DryRunAnswer, Task } from '../api/types';
import { ErrorBanner, Field } from '../components/bits';
import { ConfirmSendDialog } from '../components/ConfirmSendDialog';
import { DeliveryPanel } from '../components/DeliveryPanel';
import { AdvancedDelivery } from '../components/AdvancedDelivery';
import { DryRunPreview } from '../components/DryRunPreview';
import { previewSource, TEMPLATE_VARIABLES, useTemplatePreview } from '../components/TemplatePreview';
import { AudienceBuilder } from '../components/AudienceBuilder';
import { ListUpload } from '../components/ListUpload';
import {
  emptyForm,
  formFieldOf,
  isUin,
  toCreateBody,
  validateBroadcast,
  type BroadcastForm,
  type FieldErrors,
} from '../lib/broadcast-form';
import { confirmationOf } from '../lib/large-send';
import { fmtInt } from '../lib/format';
import { useLeaveGuard } from '../leave-guard';
import { Link, navigate, useLocation } from '../router';
import { useSession } from '../session';
import { useTitle } from '../hooks';

const AUDIENCES: [BroadcastForm['audience'], string][] = [
  ['list', 'Upload a recipient list'],
  ['followers', 'All followers of the account'],
  ['query', 'A targeting query'],
];

/**
 * Creating a broadcast: audience, content with a preview (a personalised
 * one rendered by the server for a sample user), when, priority, duration, and
 * (closed until opened) advanced delivery: local time, quiet hours, collapse key, canary, variants. Every check the console can make shows under its field before
 * anything is sent; the server's refusals land on the same fields.
 * Preview asks the server for a dry run (who would receive it, who the
 * filters remove); a large broadcast the server will not start without a
 * confirmation opens a dialog that asks for the recipient count.
 */
export function NewBroadcast() {
  useTitle('New broadcast');
  const { account } = useSession();
  const [form, setForm] = useState<BroadcastForm>(() => emptyForm(account));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Error | null>(null);
  const [dryRun, setDryRun] = useState<DryRunAnswer | null>(null);
  const [previewing, setPreviewing] = useState(false);
  // The server's question before a large broadcast; null while none is open.
  const [ask, setAsk] = useState<ConfirmationRequired | null>(null);
  const sendButton = useRef<HTMLButtonElement>(null);

  // One key per broadcast the operator sends: a retry after a lost answer reuses it, so the server answers with
  // the task its first try created instead of creating a second; changing the form makes it another broadcast.
  const idempotencyKey = useRef<string | null>(null);

  useEffect(() => setForm((f) => (f.listId === '' ? { ...f, accountId: account } : f)), [account]);

  // Clone (/new?clone=<task id>): the form starts as that task's broadcast, to send at a new time.
  const cloneId = useLocation().search.get('clone');
  const [clonedFrom, setClonedFrom] = useState<Task | null>(null);
  useEffect(() => {
    if (cloneId === null) return;
    const controller = new AbortController();
    api<Task>('GET', `/api/v1/tasks/${encodeURIComponent(cloneId)}`, undefined, controller.signal).then(
      (task) => {
        setForm(cloneOf(task));
        setClonedFrom(task);
      },
      (e) => {
        if ((e as Error).name !== 'AbortError') setFailure(e as Error);
      },
    );
    return () => controller.abort();
  }, [cloneId]);
  const releaseDraft = useLeaveGuard(
    form.listId !== '' || form.title.trim() !== '' || form.body.trim() !== '',
    'Leave this page? The broadcast you are writing is not sent and will be lost.',
  );
  const set = <K extends keyof BroadcastForm>(name: K, value: BroadcastForm[K]) => {
    const next = { ...form, [name]: value };
    setForm(next);
    idempotencyKey.current = null;
    // A preview describes the form as it was: a change makes it stale.
    setDryRun(null);
    // Once the operator tried to send, errors follow the fields as they are fixed.
    if (submitted) setErrors(validateBroadcast(next, Date.now()));
  };

  /** The form's own checks; true when the server may be asked. */
  const checkForm = (): boolean => {
    setSubmitted(true);
    setFailure(null);
    const found = validateBroadcast(form, Date.now());
    setErrors(found);
    return Object.keys(found).length === 0;
  };

  /** A refusal lands on its field, or in the banner when it names none. */
  const showFailure = (e: unknown) => {
    const field = e instanceof ApiError ? formFieldOf(e.field) : undefined;
    if (field) setErrors({ [field]: e instanceof ApiError ? inFormWords(e) : String(e) });
    else setFailure(e as Error);
  };

  const create = async (confirm?: number) => {
    setBusy(true);
    try {
      idempotencyKey.current ??= newIdempotencyKey();
      const task = await api<Task>(
        'POST',
        '/api/v1/tasks',
        { ...toCreateBody(form), ...(confirm === undefined ? {} : { confirm }) },
        undefined,
        { 'idempotency-key': idempotencyKey.current },
      );
      setAsk(null);
      releaseDraft();
      navigate(`/tasks/${task.id}`);
    } catch (e) {
      // A large broadcast: the server wants the operator to confirm the count (again, if the list changed meanwhile).
      const needed = confirmationOf(e);
      if (needed) setAsk(needed);
      else {
        setAsk(null);
        showFailure(e);
      }
      setBusy(false);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (checkForm()) await create();
  };

  const preview = async () => {
    setDryRun(null);
    if (!checkForm()) return;
    setPreviewing(true);
    try {
      setDryRun(await api<DryRunAnswer>('POST', '/api/v1/tasks?dryRun=true', toCreateBody(form)));
    } catch (e) {
      showFailure(e);
    } finally {
      setPreviewing(false);
    }
  };

  // A personalised message is previewed as the server renders it for the sample user; a plain one as typed.
  const sampleOk = form.sampleUin.trim() === '' || isUin(form.sampleUin);
  const template = useTemplatePreview(form.body, form.title, form.sampleUin, form.personalised && sampleOk);
  const rendered = form.personalised ? template.preview?.content : undefined;
  const shownTitle = rendered ? rendered.title : form.title;
  const shownBody = rendered ? rendered.body : form.body;
  const templateError = template.error ? operatorMessage(template.error) : undefined;
  const templateHint = template.checking
    ? 'Rendering…'
    : template.preview
      ? `As user ${template.preview.uin} receives it, ${previewSource(template.preview)}.`
      : undefined;

  return (
    <section className="new-broadcast">
      <div className="page-head">
        <h1>New broadcast</h1>
        <span className="muted">
          as account <strong>{form.accountId || '—'}</strong>
        </span>
      </div>
      <form onSubmit={submit} noValidate className="form-grid">
        <div className="panel">
          <h2>Audience</h2>
          {errors.accountId && (
            <div className="field-error" role="alert" data-field="accountId">
              {errors.accountId}
            </div>
          )}
          <Field label="Recipients" error={errors.audience}>
            <div className="choices">
              {AUDIENCES.map(([kind, label]) => (
                <label className="check" key={kind}>
                  <input
                    type="radio"
                    name="audience"
                    checked={form.audience === kind}
                    onChange={() => {
                      setForm({ ...form, audience: kind, listId: '' });
                      setDryRun(null);
                    }}
                  />{' '}
                  {label}
                </label>
              ))}
            </div>
          </Field>
          {form.audience === 'list' ? (
            <Field
              label="List file"
              htmlFor="listFile"
              hint="A binary list (.hrl), a text file with one id per line (.txt), or CSV (.csv, the id in the first column or a column named uin)."
            >
              {clonedFrom && form.listId === clonedFrom.listId && (
                <div className="clone-note" data-list-id={clonedFrom.listId}>
                  The list of task <Link to={`/tasks/${clonedFrom.id}`}>{clonedFrom.id}</Link>:{' '}
                  <code>{clonedFrom.listId}</code>, <strong>{fmtInt(clonedFrom.listCount)}</strong> recipients. Upload a
                  file to send to another list.
                </div>
              )}
              <ListUpload
                key={form.accountId}
                accountId={form.accountId}
                onUploaded={(list) => set('listId', list?.id ?? '')}
                error={errors.listId}
              />
            </Field>
          ) : (
            <Field label={form.audience === 'followers' ? 'Followers' : 'Query'} htmlFor="query">
              <AudienceBuilder
                key={form.accountId + form.audience}
                accountId={form.accountId}
                kind={form.audience === 'followers' ? 'followers' : 'targeting'}
                onBuilt={(list) => set('listId', list?.id ?? '')}
                error={errors.listId}
              />
            </Field>
          )}
        </div>

        <div className="panel">
          <h2>Content</h2>
          <Field label="Title" htmlFor="title" error={errors.title} hint="Optional, up to 256 characters.">
            <input id="title" value={form.title} onChange={(e) => set('title', e.target.value)} />
          </Field>
          <Field label="Message" htmlFor="body" error={errors.body}>
            <textarea id="body" rows={5} value={form.body} onChange={(e) => set('body', e.target.value)} />
          </Field>
          <Field
            label="Personalised"
            htmlFor="personalised"
            hint={
              <>
                Fill {'{{variables}}'} per recipient from their attributes:{' '}
                {TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(' ')}; a default for users without one:{' '}
                {'{{region|default:"there"}}'}.
              </>
            }
          >
            <label className="check">
              <input
                id="personalised"
                type="checkbox"
                checked={form.personalised}
                onChange={(e) => set('personalised', e.target.checked)}
              />{' '}
              Fill in variables per recipient
            </label>
          </Field>
          {form.personalised && (
            <Field
              label="Sample user"
              htmlFor="sampleUin"
              error={errors.sampleUin}
              hint="The uin the preview is rendered for."
            >
              <input
                id="sampleUin"
                className="short"
                inputMode="numeric"
                placeholder="uin"
                value={form.sampleUin}
                onChange={(e) => set('sampleUin', e.target.value)}
              />
            </Field>
          )}
          <Field
            label="Preview"
            error={form.personalised ? templateError : undefined}
            hint={form.personalised ? templateHint : 'Every recipient gets this text as written.'}
          >
            <div className="preview" aria-label="message preview">
              <div className="preview-account">{form.accountId || 'account'}</div>
              {shownTitle && <div className="msg-title">{shownTitle}</div>}
              <div className="msg-body">{shownBody || <span className="muted">Your message appears here.</span>}</div>
            </div>
          </Field>
        </div>

        <DeliveryPanel form={form} errors={errors} set={set} />
        <AdvancedDelivery form={form} errors={errors} set={set} />
        <div className="panel before-send">
          <h2>Before you send</h2>
          {dryRun ? (
            <DryRunPreview result={dryRun} />
          ) : (
            <p className="small muted">
              Preview asks the server what this broadcast would do, without creating it: who receives it, who the
              filters remove and why, and when it starts.
            </p>
          )}
        </div>
        <ErrorBanner error={failure} />
        <div className="actions">
          {submitted && Object.keys(errors).length > 0 && (
            <span className="error-text">Fix the fields marked in red.</span>
          )}
          <button type="button" onClick={preview} disabled={previewing || busy}>
            {previewing ? 'Previewing…' : 'Preview recipients'}
          </button>
          <button ref={sendButton} type="submit" className="primary" disabled={busy}>
            {busy ? 'Creating…' : form.when === 'at' ? 'Schedule broadcast' : 'Send broadcast'}
          </button>
        </div>
      </form>
      {ask && (
        <ConfirmSendDialog
          ask={ask}
          busy={busy}
          onConfirm={() => create(ask.recipients)}
          onClose={() => setAsk(null)}
          opener={sendButton}
        />
      )}
    </section>
  );
}

/** A refusal in the form's words: the server speaks of ttlSeconds, the form of hours (lib/operator-words.ts). */
function inFormWords(error: ApiError): string {
  return operatorMessage(error);
}

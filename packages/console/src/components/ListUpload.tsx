import { useRef, useState } from 'react';
import { ApiError, query, upload, type UploadHandle } from '../api/client';
import type { BadLine, ListMeta } from '../api/types';
import { csvParams, sniffCsv, type CsvShape } from '../lib/csv-columns';
import { fmtBytes, fmtInt } from '../lib/format';
import { Bar } from './bits';
import { operatorMessage } from '../lib/operator-words';

/** The content type a file is sent as: CSV and text lists are converted by the server, anything else is a binary list. */
export function contentTypeOf(file: File): string {
  const name = file.name.toLowerCase();
  if (name.endsWith('.csv')) return 'text/csv';
  if (name.endsWith('.txt')) return 'text/plain';
  return 'application/octet-stream';
}

/** Enough of a CSV to see its header line. */
const SNIFF_BYTES = 64 * 1024;

interface Refusal {
  message: string;
  badLines: BadLine[];
  /** Too many bad lines, but some good ones: the operator may skip the bad ones. */
  skippable: boolean;
}

/**
 * Uploads a recipient list for the account with a progress bar, then shows
 * what the server counted (recipients, bad lines and where they are). A CSV's
 * first line is read first: under a header the operator picks the column of
 * recipient ids (the one named `uin` is preselected) and the server is asked
 * for that column. A list refused for too many bad lines shows where they
 * are and can be sent again with the bad lines skipped.
 */
export function ListUpload({
  accountId,
  onUploaded,
  error,
  destination,
  inputId = 'listFile',
  label,
}: {
  accountId: string;
  onUploaded: (list: ListMeta | null) => void;
  error?: string;
  /** Where the file goes instead of a new list of the account: a blacklist's PUT (its path names the account). */
  destination?: string;
  /** The file input's id, unique on the page. */
  inputId?: string;
  /** The file input's accessible name, when no <label> names it. */
  label?: string;
}) {
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [list, setList] = useState<ListMeta | null>(null);
  const [refusal, setRefusal] = useState<Refusal | undefined>();
  const [file, setFile] = useState<File | null>(null);
  const [csv, setCsv] = useState<{ shape: CsvShape; column: number } | null>(null);
  const handle = useRef<UploadHandle<ListMeta> | null>(null);

  const start = async (chosen: File, shape: CsvShape | null, column: number, skipBad = false) => {
    handle.current?.abort();
    setList(null);
    onUploaded(null);
    setRefusal(undefined);
    setProgress({ sent: 0, total: chosen.size });
    const params = {
      ...(destination === undefined ? { accountId } : {}),
      ...(shape === null ? {} : csvParams(shape, column)),
      ...(skipBad ? { maxBadRatio: '1' } : {}),
    };
    const current = upload<ListMeta>(
      `${destination ?? '/api/v1/lists'}${query(params)}`,
      chosen,
      contentTypeOf(chosen),
      (sent, total) => setProgress({ sent, total }),
      destination === undefined ? 'POST' : 'PUT',
    );
    handle.current = current;
    try {
      const meta = await current.done;
      // The last progress event may come before the final bytes are counted: the upload is whole now.
      setProgress({ sent: chosen.size, total: chosen.size });
      setList(meta);
      onUploaded(meta);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'ABORTED') return;
      setRefusal(refusalOf(e as Error));
    } finally {
      if (handle.current === current) handle.current = null;
    }
  };

  const choose = async (chosen: File) => {
    setFile(chosen);
    const shape = contentTypeOf(chosen) === 'text/csv' ? sniffCsv(await chosen.slice(0, SNIFF_BYTES).text()) : null;
    setCsv(shape === null ? null : { shape, column: shape.suggested });
    await start(chosen, shape, shape?.suggested ?? 1);
  };

  const shown = refusal?.message ?? error;
  const uploading = handle.current !== null && list === null && refusal === undefined;
  return (
    <div className="upload">
      <input
        id={inputId}
        aria-label={label}
        type="file"
        accept=".csv,.txt,.hrl,application/octet-stream,text/csv,text/plain"
        onChange={(e) => {
          const chosen = e.target.files?.[0];
          if (chosen) void choose(chosen);
        }}
      />
      {file && csv && csv.shape.columns > 1 && (
        <label className="csv-column">
          Recipient id column{' '}
          <select
            value={csv.column}
            onChange={(e) => {
              const column = Number(e.target.value);
              setCsv({ ...csv, column });
              void start(file, csv.shape, column);
            }}
          >
            {Array.from({ length: csv.shape.columns }, (_, i) => (
              <option key={i} value={i + 1}>
                {csv.shape.header?.[i] ? `${csv.shape.header[i]} (column ${i + 1})` : `column ${i + 1}`}
              </option>
            ))}
          </select>
        </label>
      )}
      {progress && (
        <div className="upload-progress">
          <Bar
            label="upload progress"
            segments={[
              { fraction: progress.total > 0 ? progress.sent / progress.total : 1, tone: list ? 'online' : 'neutral' },
            ]}
            status={list ? 'done' : 'running'}
          />
          <span className="small muted">
            {fmtBytes(progress.sent)} of {fmtBytes(progress.total)}
            {uploading && progress.sent >= progress.total && ' · checking the list…'}
          </span>
          {uploading && (
            <button type="button" className="link" onClick={() => handle.current?.abort()}>
              cancel upload
            </button>
          )}
        </div>
      )}
      {list && (
        <div className="upload-result" data-list-id={list.id}>
          List <code>{list.id}</code>: <strong>{fmtInt(list.count)}</strong> recipients
          {list.import && list.import.bad.total > 0 && (
            <span className="muted">
              {' '}
              · {fmtInt(list.import.bad.total)} bad line(s) skipped
              <BadLines lines={list.import.firstBad ?? []} total={list.import.bad.total} />
            </span>
          )}
        </div>
      )}
      {shown && (
        <div className="field-error" role="alert" data-field="listId">
          {shown}
          {refusal && <BadLines lines={refusal.badLines} />}
          {refusal?.skippable && file && (
            <button
              type="button"
              className="link"
              onClick={() => void start(file, csv?.shape ?? null, csv?.column ?? 1, true)}
            >
              Skip the bad lines and upload again
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** Where the bad lines are, as the server named them. */
function BadLines({ lines, total }: { lines: BadLine[]; total?: number }) {
  if (lines.length === 0) return null;
  const more = total !== undefined && total > lines.length ? `, and ${fmtInt(total - lines.length)} more` : '';
  return (
    <span className="bad-lines">
      {' '}
      ({lines.map((b) => `line ${b.line}: ${b.reason.replace(/_/g, ' ')}`).join(', ')}
      {more})
    </span>
  );
}

function refusalOf(error: Error): Refusal {
  if (!(error instanceof ApiError)) return { message: error.message, badLines: [], skippable: false };
  const bad = error.details.bad as Record<string, number> | undefined;
  const badLines = Array.isArray(error.details.firstBad) ? (error.details.firstBad as BadLine[]) : [];
  if (error.code === 'LIST_TOO_MANY_BAD_LINES' && bad) {
    const valid = typeof error.details.valid === 'number' ? error.details.valid : 0;
    const share = valid + bad.total > 0 ? ((100 * bad.total) / (valid + bad.total)).toFixed(1) : '100';
    const allowed = typeof error.details.maxBadRatio === 'number' ? `${100 * error.details.maxBadRatio}%` : 'the share';
    return {
      message:
        valid === 0
          ? `No line holds a recipient id: is it the right column?`
          : `${fmtInt(bad.total)} of ${fmtInt(valid + bad.total)} lines (${share}%) are bad, more than ${allowed} allowed.`,
      badLines,
      skippable: valid > 0,
    };
  }
  return {
    message: `${operatorMessage(error)}${error.code.startsWith('LIST_') ? ` [${error.code}]` : ''}`,
    badLines,
    skippable: false,
  };
}

import type { VariantCount } from '../api/funnel-types';
import { fmtInt, fmtSetShare } from '../lib/format';

const count = (n: number | null) => (n === null ? 'unknown' : fmtInt(n));

/**
 * An A/B task's recipients per variant (the funnel's `variants`,
 * docs/rollouts.md "Reports"): the share set, the kept recipients it was
 * given, and how they stand. The holdout is the funnel's "held out" row.
 */
export function VariantCounts({ variants }: { variants: VariantCount[] | undefined }) {
  if (variants === undefined || variants.length === 0) return null;
  return (
    // Focusable: on a phone the table scrolls sideways, and a keyboard must be able to scroll it.
    <table className="grid compact variants" tabIndex={0}>
      <caption id="variants-heading">Variants</caption>
      <thead>
        <tr>
          <th scope="col">Variant</th>
          <th scope="col" className="num">
            Share
          </th>
          <th scope="col" className="num">
            Recipients
          </th>
          <th scope="col" className="num">
            Pushed online
          </th>
          <th scope="col" className="num">
            Queued offline
          </th>
        </tr>
      </thead>
      <tbody>
        {variants.map((v) => (
          <tr key={v.name} data-variant={v.name}>
            <th scope="row" className="mono">
              {v.name}
            </th>
            <td className="num">{fmtSetShare(v.share)}</td>
            <td className="num" data-variant-count="recipients">
              {fmtInt(v.recipients)}
            </td>
            <td className="num" data-variant-count="online">
              {count(v.deliveredOnline)}
            </td>
            <td className="num" data-variant-count="offline">
              {count(v.queuedOffline)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

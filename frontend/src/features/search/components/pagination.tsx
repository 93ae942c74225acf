import { th } from "@/i18n/th";
import { formatNumber } from "@/lib/format";

/** Page numbers around the current one, with gaps: 1 … 4 5 [6] 7 8 … 20. */
export function pageItems(page: number, totalPages: number, around = 1): Array<number | "gap"> {
  if (totalPages <= 1) return [1];
  const set = new Set<number>([1, totalPages]);
  for (let p = page - around; p <= page + around; p++) if (p >= 1 && p <= totalPages) set.add(p);
  if (page <= 3) for (let p = 2; p <= Math.min(4, totalPages); p++) set.add(p);
  if (page >= totalPages - 2) for (let p = Math.max(1, totalPages - 3); p < totalPages; p++) set.add(p);
  const sorted = [...set].sort((a, b) => a - b);
  const out: Array<number | "gap"> = [];
  sorted.forEach((p, i) => {
    if (i > 0 && p - sorted[i - 1] > 1) out.push("gap");
    out.push(p);
  });
  return out;
}

type Props = {
  page: number;
  totalPages: number;
  hasNext: boolean;
  onPage: (p: number) => void;
};

export function Pagination({ page, totalPages, hasNext, onPage }: Props) {
  // With an estimated total the last page is uncertain: trust has_next over the arithmetic.
  const last = Math.max(totalPages, hasNext ? page + 1 : page);
  if (last <= 1) return null;
  const items = pageItems(page, last);
  return (
    <nav className="pagination" aria-label={th.search.pagination} data-testid="pagination">
      <button type="button" className="page-btn page-step" disabled={page <= 1} onClick={() => onPage(page - 1)} data-testid="page-prev">
        ‹ {th.search.prev}
      </button>
      <ul>
        {items.map((it, i) =>
          it === "gap" ? (
            <li key={`g${i}`} className="page-gap" aria-hidden="true">
              …
            </li>
          ) : (
            <li key={it}>
              <button
                type="button"
                className={`page-btn${it === page ? " current" : ""}`}
                aria-current={it === page ? "page" : undefined}
                aria-label={th.search.pageN(formatNumber(it))}
                onClick={() => it !== page && onPage(it)}
                data-testid={`page-${it}`}
              >
                {formatNumber(it)}
              </button>
            </li>
          ),
        )}
      </ul>
      <button type="button" className="page-btn page-step" disabled={!hasNext && page >= last} onClick={() => onPage(page + 1)} data-testid="page-next">
        {th.search.next} ›
      </button>
    </nav>
  );
}

import type { ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Cell, ComposedChart, Line, Tooltip, XAxis, YAxis } from "recharts";
import { th } from "@/i18n/th";
import { formatNumber } from "@/lib/format";
import { fmtPct, trimBins, type Bin, type YearPoint } from "../lib/view";

/*
 * The market's charts (recharts; this module and the library are the market
 * chunks' own, never the first page's). Each chart is a figure with its
 * numbers in a table under a disclosure: a screen reader, a search and a
 * copy read the table, the eye reads the chart.
 */

const t = th.market;
const PRIMARY = "#1746a2";
const ACCENT = "#16a38a";
const WARN = "#d97706";
const GRID = "#dfe5ef";
const TICK = { fontSize: 12, fill: "#526075" };

function Figure({ title, table, children, testId }: { title: string; table: ReactNode; children: ReactNode; testId: string }) {
  return (
    <figure className="mk-figure" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <div className="mk-chart">{children}</div>
      <details className="mk-table-toggle">
        <summary>{t.dataTable}</summary>
        <div className="mk-table-wrap">{table}</div>
      </details>
    </figure>
  );
}

/** The discount distribution: projects per discount band; highlight: the band holding the user's bid. */
export function DiscountHistogram({ bins, highlightPct, testId = "mk-histogram" }: { bins: readonly Bin[]; highlightPct?: number | null; testId?: string }) {
  const data = trimBins(bins).map((b) => ({ ...b, label: `${formatNumber(b.fromPct)}` }));
  const hit = highlightPct === null || highlightPct === undefined ? -1 : data.findIndex((b, i) => highlightPct >= b.fromPct && (highlightPct < b.toPct || (i === data.length - 1 && highlightPct <= b.toPct)));
  const table = (
    <table className="mk-table">
      <thead>
        <tr>
          <th scope="col">{t.histogramAxis}</th>
          <th scope="col">{t.histogramCount}</th>
        </tr>
      </thead>
      <tbody>
        {data.map((b) => (
          <tr key={b.fromPct}>
            <td>{t.bin(fmtPct(b.fromPct), fmtPct(b.toPct))}</td>
            <td>{formatNumber(b.count)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <Figure title={t.histogram} table={table} testId={testId}>
      <BarChart responsive data={data} style={{ width: "100%", height: 220 }} margin={{ top: 8, right: 4, bottom: 4, left: -18 }} barCategoryGap={1}>
        <CartesianGrid vertical={false} stroke={GRID} />
        <XAxis dataKey="label" tick={TICK} interval="preserveStartEnd" minTickGap={6} tickLine={false} />
        <YAxis allowDecimals={false} tick={TICK} width={48} tickLine={false} axisLine={false} />
        <Tooltip
          formatter={(v) => [formatNumber(Number(v)), t.histogramCount]}
          labelFormatter={(_l, payload) => {
            const b = payload?.[0]?.payload as Bin | undefined;
            return b ? `${t.discount} ${t.bin(fmtPct(b.fromPct), fmtPct(b.toPct))}` : "";
          }}
        />
        <Bar dataKey="count" isAnimationActive={false} radius={[3, 3, 0, 0]}>
          {data.map((b, i) => (
            <Cell key={b.fromPct} fill={i === hit ? WARN : PRIMARY} />
          ))}
        </Bar>
      </BarChart>
      <p className="mk-axis-note">{t.histogramAxis}</p>
    </Figure>
  );
}

/** The trend by budget year (Buddhist era): median discount as a line over the projects counted as bars. */
export function YearTrend({ rows, testId = "mk-trend" }: { rows: readonly YearPoint[]; testId?: string }) {
  const data = rows.map((r) => ({ year: String(r.year), n: r.n, p50: r.p50 ?? null }));
  const table = (
    <table className="mk-table">
      <thead>
        <tr>
          <th scope="col">{t.budgetYearShort}</th>
          <th scope="col">{t.trendN}</th>
          <th scope="col">{t.trendMedian}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.year}>
            <td>{r.year}</td>
            <td>{formatNumber(r.n)}</td>
            <td>{r.p50 === null || r.p50 === undefined ? "–" : fmtPct(r.p50)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <Figure title={t.trend} table={table} testId={testId}>
      <ComposedChart responsive data={data} style={{ width: "100%", height: 220 }} margin={{ top: 8, right: 0, bottom: 4, left: 0 }}>
        <CartesianGrid vertical={false} stroke={GRID} />
        <XAxis dataKey="year" tick={TICK} tickLine={false} />
        <YAxis yAxisId="n" orientation="right" allowDecimals={false} tick={TICK} width={44} tickLine={false} axisLine={false} />
        <YAxis yAxisId="pct" tick={TICK} width={44} tickLine={false} axisLine={false} unit="%" />
        <Tooltip
          formatter={(v, name) => (name === "p50" ? [v === null ? "–" : fmtPct(Number(v)), t.trendMedian] : [formatNumber(Number(v)), t.trendN])}
          labelFormatter={(l) => t.budgetYear(Number(l))}
        />
        <Bar yAxisId="n" dataKey="n" fill={ACCENT} fillOpacity={0.35} isAnimationActive={false} radius={[3, 3, 0, 0]} maxBarSize={56} />
        <Line yAxisId="pct" dataKey="p50" stroke={PRIMARY} strokeWidth={2.5} dot={{ r: 3 }} connectNulls isAnimationActive={false} />
      </ComposedChart>
      <p className="mk-legend">
        <span className="mk-key mk-key-line" /> {t.trendMedian}
        <span className="mk-key mk-key-bar" /> {t.trendN}
      </p>
    </Figure>
  );
}

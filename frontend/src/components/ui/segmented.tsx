export type SegmentedOption<T extends string> = { value: T; label: string; testId?: string };

type Props<T extends string> = {
  /** Names the group for screen readers. */
  label: string;
  value: T;
  options: readonly SegmentedOption<T>[];
  onChange: (value: T) => void;
  testId?: string;
};

/** One choice of a few, side by side (the search's short/long view): pressed buttons in a group. */
export function Segmented<T extends string>({ label, value, options, onChange, testId }: Props<T>) {
  return (
    <div className="segmented" role="group" aria-label={label} data-testid={testId}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          className={value === o.value ? "active" : ""}
          aria-pressed={value === o.value}
          onClick={() => onChange(o.value)}
          data-testid={o.testId}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

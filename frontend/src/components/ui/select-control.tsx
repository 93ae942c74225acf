export type SelectOption<T extends string> = { value: T; label: string };

type Props<T extends string> = {
  label: string;
  value: T;
  options: readonly SelectOption<T>[];
  onChange: (value: T) => void;
  testId?: string;
};

/** A compact labelled select for toolbars and filters (the search's sort and page size). */
export function SelectControl<T extends string>({ label, value, options, onChange, testId }: Props<T>) {
  return (
    <label className="control">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.target.value as T)} data-testid={testId}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

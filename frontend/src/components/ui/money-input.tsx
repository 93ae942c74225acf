import { useId, useState } from "react";
import { FieldFrame, fieldDescribedBy } from "@/components/ui/field-frame";
import { th } from "@/i18n/th";
import { formatAmountInput, parseAmount, thaiDigitsToAscii } from "@/lib/format";

type Props = {
  label: string;
  value: number | null;
  onChange: (v: number | null) => void;
  error?: string | null;
  hint?: string;
  placeholder?: string;
  testId?: string;
};

/** Live thousands separators while typing: "1234567" → "1,234,567" (decimals kept as typed). */
export function groupDigits(text: string): string {
  const t = thaiDigitsToAscii(text).replace(/[^\d.]/g, "");
  const [int, ...rest] = t.split(".");
  const grouped = int.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return rest.length ? `${grouped}.${rest.join("").slice(0, 2)}` : grouped;
}

/**
 * An amount in baht with thousands separators. What the user typed stays as
 * typed while it means `value`; another value (set from outside) is shown
 * formatted.
 */
export function MoneyInput({ label, value, onChange, error, hint, placeholder, testId }: Props) {
  const id = useId();
  const [text, setText] = useState(() => formatAmountInput(value));
  // A new value is taken in while rendering, not in an effect: the field then
  // shows it in the same commit as the change that set it (the bid's percent
  // typed), not a render later with the old amount in between.
  const [shownValue, setShownValue] = useState(value);
  if (!Object.is(value, shownValue)) {
    setShownValue(value);
    if (parseAmount(text) !== value) setText(formatAmountInput(value));
  }

  return (
    <FieldFrame id={id} label={label} error={error} hint={hint}>
      <div className="field-control money-control">
        <input
          id={id}
          data-testid={testId}
          value={text}
          inputMode="decimal"
          placeholder={placeholder}
          autoComplete="off"
          onChange={(e) => {
            const g = groupDigits(e.target.value);
            setText(g);
            onChange(parseAmount(g));
          }}
          onBlur={() => setText(formatAmountInput(parseAmount(text)))}
          aria-invalid={error ? true : undefined}
          aria-describedby={fieldDescribedBy(id, error, hint)}
        />
        <span className="money-unit" aria-hidden="true">
          {th.common.baht}
        </span>
      </div>
    </FieldFrame>
  );
}

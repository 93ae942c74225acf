import { useEffect, useId, useState } from "react";
import { FieldFrame, fieldDescribedBy } from "@/components/ui/field-frame";
import { th } from "@/i18n/th";
import { formatIsoDateBE, parseThaiDateInput } from "@/lib/format";

type Props = {
  label: string;
  /** ISO Gregorian date or "". */
  value: string;
  onChange: (iso: string) => void;
  /** An error from the form (e.g. the range is reversed). */
  error?: string | null;
  testId?: string;
};

/**
 * A date shown and typed in the Buddhist era ("21 พ.ย. 2569", "21/11/2569"),
 * held and sent as an ISO Gregorian date.
 */
export function BeDateInput({ label, value, onChange, error, testId }: Props) {
  const id = useId();
  const [text, setText] = useState(() => formatIsoDateBE(value));
  const [invalid, setInvalid] = useState(false);

  useEffect(() => {
    setText(formatIsoDateBE(value));
    setInvalid(false);
  }, [value]);

  const commit = () => {
    if (text.trim() === "") {
      setInvalid(false);
      if (value !== "") onChange("");
      return;
    }
    const iso = parseThaiDateInput(text);
    if (!iso) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    setText(formatIsoDateBE(iso));
    if (iso !== value) onChange(iso);
  };

  const shownError = invalid ? th.search.dateInvalid : error;
  return (
    <FieldFrame id={id} label={label} error={shownError} hint={th.search.dateHint}>
      <div className="field-control">
        <input
          id={id}
          data-testid={testId}
          value={text}
          placeholder={th.search.datePlaceholder}
          inputMode="text"
          autoComplete="off"
          onChange={(e) => {
            setText(e.target.value);
            setInvalid(false);
          }}
          onBlur={commit}
          onKeyDown={(e) => e.key === "Enter" && commit()}
          aria-invalid={shownError ? true : undefined}
          aria-describedby={fieldDescribedBy(id, shownError, th.search.dateHint)}
          data-iso={value}
        />
      </div>
    </FieldFrame>
  );
}

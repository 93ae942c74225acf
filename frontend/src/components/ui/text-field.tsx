import { useId, useState, type InputHTMLAttributes } from "react";
import { th } from "@/i18n/th";
import { FieldFrame, fieldDescribedBy } from "./field-frame";
import { IconEye, IconEyeOff } from "./icons";

type Props = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  error?: string | null;
  hint?: string;
  optional?: boolean;
};

export function TextField({ label, error, hint, optional, type = "text", id, ...rest }: Props) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const [reveal, setReveal] = useState(false);
  const isPassword = type === "password";
  return (
    <FieldFrame id={inputId} label={label} error={error} hint={hint} optional={optional}>
      <div className="field-control">
        <input
          id={inputId}
          type={isPassword && reveal ? "text" : type}
          aria-invalid={error ? true : undefined}
          aria-describedby={fieldDescribedBy(inputId, error, hint)}
          {...rest}
        />
        {isPassword && (
          <button
            type="button"
            className="field-reveal"
            onClick={() => setReveal((r) => !r)}
            aria-label={reveal ? th.auth.hidePassword : th.auth.showPassword}
            aria-pressed={reveal}
          >
            {reveal ? <IconEyeOff size={18} /> : <IconEye size={18} />}
          </button>
        )}
      </div>
    </FieldFrame>
  );
}

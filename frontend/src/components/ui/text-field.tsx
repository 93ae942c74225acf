import { useId, useState, type InputHTMLAttributes } from "react";
import { th } from "@/i18n/th";
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
  const describedBy = [error ? `${inputId}-err` : "", hint ? `${inputId}-hint` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${error ? " field-invalid" : ""}`}>
      <label htmlFor={inputId} className="field-label">
        {label}
        {optional && <span className="field-optional"> ({th.common.optional})</span>}
      </label>
      <div className="field-control">
        <input
          id={inputId}
          type={isPassword && reveal ? "text" : type}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
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
      {hint && !error && (
        <p id={`${inputId}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${inputId}-err`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

import type { ReactNode } from "react";
import { th } from "@/i18n/th";

type Props = {
  /** The id of the control the label names. */
  id: string;
  label: string;
  /** Shown under the control, announced, and the field marked invalid. */
  error?: string | null;
  /** Shown while there is no error. */
  hint?: string;
  optional?: boolean;
  /** Extra classes of the wrapper. */
  className?: string;
  testId?: string;
  children: ReactNode;
};

/** The label and message around a form control: every field of the app has the same frame. */
export function FieldFrame({ id, label, error, hint, optional, className, testId, children }: Props) {
  return (
    <div className={["field", className, error ? "field-invalid" : ""].filter(Boolean).join(" ")} data-testid={testId}>
      <label htmlFor={id} className="field-label">
        {label}
        {optional && <span className="field-optional"> ({th.common.optional})</span>}
      </label>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-err`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The control's aria-describedby: the message FieldFrame shows, if any. */
export function fieldDescribedBy(id: string, error?: string | null, hint?: string): string | undefined {
  if (error) return `${id}-err`;
  return hint ? `${id}-hint` : undefined;
}

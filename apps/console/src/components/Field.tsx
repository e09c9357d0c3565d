import type { InputHTMLAttributes, Ref } from 'react';
import styles from './forms.module.css';

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'onChange' | 'value'>;

/** A labelled input, with an optional hint read out with it. */
export function Field({
  id,
  label,
  value,
  onChange,
  hint,
  invalid,
  inputRef,
  ...input
}: InputProps & {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: string;
  invalid?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}) {
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={styles.label}>
        {label}
      </label>
      <input
        {...input}
        id={id}
        ref={inputRef}
        className={styles.input}
        value={value}
        aria-invalid={invalid || undefined}
        aria-describedby={hintId}
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && (
        <p id={hintId} className={styles.hint}>
          {hint}
        </p>
      )}
    </div>
  );
}

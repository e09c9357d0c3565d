import { useEffect, useId, useRef, type ReactNode } from 'react';
import formStyles from './forms.module.css';
import styles from './ConfirmDialog.module.css';

/**
 * A modal question before an action that cannot be undone (native <dialog>: focus is trapped and Escape
 * cancels). `confirm` names the action on its button, so the button alone says what happens.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirm,
  busy = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirm: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    else if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={dialog} className={styles.dialog} aria-labelledby={titleId} onClose={onCancel}>
      <h2 id={titleId}>{title}</h2>
      <div>{children}</div>
      <div className={formStyles.actions}>
        <button type="button" className={formStyles.secondary} onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className={`${formStyles.primary} ${styles.danger}`}
          disabled={busy}
          onClick={onConfirm}
        >
          {confirm}
        </button>
      </div>
    </dialog>
  );
}

import type { ReactNode } from 'react';
import styles from './Alert.module.css';

/**
 * A message for the person in front of the page. Errors and warnings are announced at once (role=alert);
 * information politely (role=status).
 */
export function Alert({
  tone,
  children,
  id,
}: {
  tone: 'error' | 'warning' | 'info' | 'success';
  children: ReactNode;
  id?: string;
}) {
  const urgent = tone === 'error' || tone === 'warning';
  return (
    <div id={id} role={urgent ? 'alert' : 'status'} className={`${styles.alert} ${styles[tone]}`}>
      {children}
    </div>
  );
}

import type { ReactNode } from 'react';
import { Brand } from './Brand';
import styles from './PageCard.module.css';

/** The pages a person sees before (or after) being signed in: one centred card. */
export function PageCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className={styles.page}>
      <section className={styles.card} aria-labelledby="page-title">
        <Brand />
        <h1 id="page-title" className={styles.title}>
          {title}
        </h1>
        {children}
      </section>
    </main>
  );
}

import { useEffect } from 'react';

/** The browser tab's title for the page being shown. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Decisioning operations`;
  }, [title]);
}

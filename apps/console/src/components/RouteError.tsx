import { useEffect, type ReactNode } from 'react';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import formStyles from './forms.module.css';
import { PageCard } from './PageCard';

/**
 * Whether the error is the browser failing to load one of the console's own script or style files. After a
 * deploy the hashed files of the version an open tab runs are gone, so its next page cannot load: Chromium
 * says "Failed to fetch dynamically imported module", Firefox "error loading dynamically imported module",
 * Safari "Importing a module script failed", Vite's preload "Unable to preload CSS".
 */
export function isScriptLoadFailure(error: unknown): boolean {
  return (
    error instanceof Error &&
    /dynamically imported module|importing a module script failed|unable to preload css/i.test(error.message)
  );
}

function reload() {
  window.location.reload();
}

/** What an error means to the person in front of the page: a new version, a page that is not there, or a fault. */
function errorContent(error: unknown): { title: string; body: ReactNode } {
  if (isScriptLoadFailure(error))
    return {
      title: 'A new version of the console is available',
      body: (
        <>
          <p>
            This page could not load its script: the console was updated after this tab opened it. Reload to
            use the new version; the address keeps what the page showed (filters, window, page).
          </p>
          <p>
            <button type="button" className={formStyles.primary} onClick={reload}>
              Reload
            </button>
          </p>
        </>
      ),
    };
  if (isRouteErrorResponse(error) && error.status === 404)
    return {
      title: 'This page does not exist',
      body: (
        <p>
          <Link to="/">Go to the console home</Link>
        </p>
      ),
    };
  return {
    title: 'Something went wrong in this page',
    body: (
      <>
        <p>
          The console met an error it did not expect. Nothing was changed by it. Reload the page, or go back
          to the console home; if it happens again, tell the service&rsquo;s operators what you did.
        </p>
        <p className={formStyles.actions}>
          <Link to="/">Go to the console home</Link>
          <button type="button" className={formStyles.secondary} onClick={reload}>
            Reload
          </button>
        </p>
      </>
    ),
  };
}

function useErrorTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Decisioning operations`;
  }, [title]);
}

/**
 * The error boundary of a page inside the signed-in shell: the header and navigation stay, the page says what
 * happened and offers the way on. Never the framework's developer screen.
 */
export function PageError() {
  const error = useRouteError();
  const { title, body } = errorContent(error);
  useErrorTitle(title);
  return (
    <div data-route-error>
      <h1>{title}</h1>
      {body}
    </div>
  );
}

/** The error boundary of the console's outer routes (the shell itself, the Login and Logout pages). */
export function ConsoleError() {
  const error = useRouteError();
  const { title, body } = errorContent(error);
  useErrorTitle(title);
  return (
    <PageCard title={title}>
      <div data-route-error>{body}</div>
    </PageCard>
  );
}

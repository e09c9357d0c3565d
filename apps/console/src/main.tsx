import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api/problem';
import { here, loginUrl, LOGIN_PATH } from './components/return-url';
import { routes } from './routes';
import './global.css';

/** A 401 anywhere in a signed-in page: the session is over (idle, revoked, logged out elsewhere). */
function sessionOver(error: unknown): void {
  if (error instanceof ApiError && error.status === 401 && window.location.pathname !== LOGIN_PATH)
    window.location.assign(loginUrl(here(), true));
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: sessionOver }),
  mutationCache: new MutationCache({ onError: sessionOver }),
  defaultOptions: {
    queries: {
      refetchOnWindowFocus: false,
      retry: (count, error) =>
        !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 1,
    },
  },
});
const router = createBrowserRouter(routes);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);

import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { ConsoleError, PageError } from './components/RouteError';
import { LoginPage } from './pages/login/LoginPage';
import { LogoutPage } from './pages/logout/LogoutPage';

/**
 * A route's component loaded when needed. When its script cannot load, the route's component is one that
 * throws that error as it renders, so the route's error boundary shows it: React Router keeps a failed `lazy`
 * of a route without a loader to itself and renders an empty page.
 */
function lazyPage(load: () => Promise<ComponentType>): RouteObject['lazy'] {
  return async () => {
    try {
      return { Component: await load() };
    } catch (error) {
      return {
        Component: () => {
          throw error;
        },
      };
    }
  };
}

/** The pages inside the signed-in shell, each loaded when needed (the grid pages bring uPlot with them). */
const pages: RouteObject[] = [
  { index: true, lazy: lazyPage(async () => (await import('./pages/home/HomePage')).HomePage) },
  {
    path: 'Administration/:grid',
    lazy: lazyPage(async () => (await import('./pages/grids/GridPage')).GridPage),
  },
  {
    path: 'Security/Users',
    lazy: lazyPage(async () => (await import('./pages/security/UsersPage')).UsersPage),
  },
  {
    path: 'Security/Users/:guid',
    lazy: lazyPage(async () => (await import('./pages/security/UserPage')).UserPage),
  },
  {
    path: 'Security/Roles',
    lazy: lazyPage(async () => (await import('./pages/security/RolesPage')).RolesPage),
  },
  {
    path: 'Security/Tenants',
    lazy: lazyPage(async () => (await import('./pages/security/TenantsPage')).TenantsPage),
  },
  {
    path: '*',
    lazy: lazyPage(async () => (await import('./pages/not-found/NotFoundPage')).NotFoundPage),
  },
];

/**
 * The console's routes. The Login and Logout pages are in the first bundle; the signed-in shell and its
 * pages load when needed. Every route has an error boundary from the first bundle (components/RouteError):
 * a page whose script cannot load (a tab opened before a deploy) offers Reload, any other error a way back;
 * a page's failure keeps the shell around it. The service answers index.html for exactly these paths
 * (libs/console CONSOLE_PAGES).
 */
export const routes: RouteObject[] = [
  { path: '/Account/Login', Component: LoginPage, ErrorBoundary: ConsoleError },
  { path: '/Account/Logout', Component: LogoutPage, ErrorBoundary: ConsoleError },
  {
    path: '/',
    lazy: lazyPage(async () => (await import('./components/shell/Shell')).Shell),
    ErrorBoundary: ConsoleError,
    children: pages.map((page) => ({ ...page, ErrorBoundary: PageError })),
  },
];

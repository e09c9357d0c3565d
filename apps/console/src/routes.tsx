import type { RouteObject } from 'react-router';
import { LoginPage } from './pages/login/LoginPage';
import { LogoutPage } from './pages/logout/LogoutPage';

/**
 * The console's routes. The Login and Logout pages are in the first bundle; the signed-in shell and its
 * pages load when needed (the grid pages bring uPlot with them). The service answers index.html for exactly
 * these paths (libs/console CONSOLE_PAGES).
 */
export const routes: RouteObject[] = [
  { path: '/Account/Login', Component: LoginPage },
  { path: '/Account/Logout', Component: LogoutPage },
  {
    path: '/',
    lazy: async () => ({ Component: (await import('./components/shell/Shell')).Shell }),
    children: [
      { index: true, lazy: async () => ({ Component: (await import('./pages/home/HomePage')).HomePage }) },
      {
        path: 'Administration/:grid',
        lazy: async () => ({ Component: (await import('./pages/grids/GridPage')).GridPage }),
      },
      {
        path: 'Security/Users',
        lazy: async () => ({ Component: (await import('./pages/security/UsersPage')).UsersPage }),
      },
      {
        path: 'Security/Users/:guid',
        lazy: async () => ({ Component: (await import('./pages/security/UserPage')).UserPage }),
      },
      {
        path: 'Security/Roles',
        lazy: async () => ({ Component: (await import('./pages/security/RolesPage')).RolesPage }),
      },
      {
        path: 'Security/Tenants',
        lazy: async () => ({ Component: (await import('./pages/security/TenantsPage')).TenantsPage }),
      },
      {
        path: '*',
        lazy: async () => ({ Component: (await import('./pages/not-found/NotFoundPage')).NotFoundPage }),
      },
    ],
  },
];

import { NavLink } from 'react-router';
import type { Session } from '../../api/queries';
import { GRIDS, gridPath } from '../../pages/grids/declarations';
import { allows, PERMISSION, type Access } from '../permissions';
import styles from './shell.module.css';

interface Entry {
  to: string;
  label: string;
  access: Access;
}

/** The Security pages and what the service demands for each (libs/identity, libs/api-keys controllers). */
export const SECURITY_PAGES: readonly Entry[] = [
  { to: '/Security/Users', label: 'Users', access: { permission: PERMISSION.ReadWriteSecurityUser } },
  { to: '/Security/Roles', label: 'Roles', access: { permission: PERMISSION.ReadWriteSecurityRole } },
  {
    to: '/Security/Tenants',
    label: 'Tenants',
    access: { permission: PERMISSION.ReadWriteTenant, landlord: true },
  },
];

/**
 * The console's pages the signed-in user may open, by the same rules the service applies (landlord for the
 * telemetry grids, Read Security Audit for the audit grids, ...). Hiding is a courtesy: the service still
 * decides every request, and a page opened by URL says "not permitted".
 */
export function Navigation({ session, open }: { session: Session; open: boolean }) {
  const groups: { title: string; entries: Entry[] }[] = [
    {
      title: 'Telemetry',
      entries: GRIDS.filter((g) => g.group === 'Telemetry').map((g) => ({
        to: gridPath(g),
        label: g.title,
        access: g.access,
      })),
    },
    {
      title: 'Audit',
      entries: GRIDS.filter((g) => g.group === 'Audit').map((g) => ({
        to: gridPath(g),
        label: g.title,
        access: g.access,
      })),
    },
    { title: 'Security', entries: [...SECURITY_PAGES] },
  ]
    .map((g) => ({ ...g, entries: g.entries.filter((e) => allows(session, e.access)) }))
    .filter((g) => g.entries.length > 0);

  return (
    <nav aria-label="Console" id="console-navigation" className={styles.nav} data-open={open}>
      <NavLink to="/" end className={({ isActive }) => (isActive ? styles.current : undefined)}>
        Home
      </NavLink>
      {groups.map((g) => (
        <div key={g.title} className={styles.navGroup}>
          <h2 id={`nav-${g.title}`}>{g.title === 'Security' ? 'Security' : `Administration · ${g.title}`}</h2>
          <ul aria-labelledby={`nav-${g.title}`}>
            {g.entries.map((e) => (
              <li key={e.to}>
                <NavLink to={e.to} className={({ isActive }) => (isActive ? styles.current : undefined)}>
                  {e.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}

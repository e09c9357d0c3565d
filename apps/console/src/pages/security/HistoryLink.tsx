import { Link } from 'react-router';
import type { Session } from '../../api/queries';
import { allows, PERMISSION } from '../../components/permissions';
import { historyPath } from '../grids/declarations';

/** A record's own history in the administrators' trail, for those who may read it (Read Security Audit). */
export function HistoryLink({ session, guid, label }: { session: Session; guid: string; label: string }) {
  if (!allows(session, { permission: PERMISSION.ReadSecurityAudit })) return null;
  return (
    <Link to={historyPath(guid)} aria-label={label}>
      History
    </Link>
  );
}

import { AdminEvent } from './admin-event.entity';
import { UserLogin } from './user-login.entity';
import { UserLogout } from './user-logout.entity';

export { AdminEvent, UserLogin, UserLogout };
export const AUDIT_ENTITIES = [UserLogin, UserLogout, AdminEvent];

import { UserLogin } from './user-login.entity';
import { UserLogout } from './user-logout.entity';

export { UserLogin, UserLogout };
export const AUDIT_ENTITIES = [UserLogin, UserLogout];

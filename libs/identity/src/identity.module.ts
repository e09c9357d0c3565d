import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { ActorService } from './actor.service';
import { BootstrapService } from './bootstrap.service';
import { IDENTITY_ENTITIES } from './entities';
import { RoleRegistryController } from './role-registry.controller';
import { TenantRegistryController } from './tenant-registry.controller';
import { UserRegistryController } from './user-registry.controller';
import { IdentityAuthService } from './identity-auth.service';
import { IdentityEvents } from './identity-events';
import { IdentityRepository } from './identity.repository';
import { SessionUserRepository } from './session-user.repository';
import { UserSecurityRepository } from './user-security.repository';
import { PasswordHasher, PasswordPolicy } from './password-hasher';
import { RoleService } from './role.service';
import { TenantService } from './tenant.service';
import { UserService } from './user.service';

@Module({
  imports: [TypeOrmModule.forFeature(IDENTITY_ENTITIES), AuditModule],
  controllers: [TenantRegistryController, RoleRegistryController, UserRegistryController],
  providers: [
    ActorService,
    IdentityRepository,
    UserSecurityRepository,
    SessionUserRepository,
    PasswordHasher,
    PasswordPolicy,
    TenantService,
    RoleService,
    UserService,
    BootstrapService,
    IdentityAuthService,
    IdentityEvents,
  ],
  exports: [
    IdentityEvents,
    ActorService,
    IdentityAuthService,
    PasswordHasher,
    PasswordPolicy,
    TenantService,
    RoleService,
    UserService,
    BootstrapService,
  ],
})
export class IdentityModule {}

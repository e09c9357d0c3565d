import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { IdentityModule } from '@app/identity';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyController } from './api-key.controller';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyService } from './api-key.service';
import { UserRegistryApiKey } from './entities/user-registry-api-key.entity';

@Module({
  imports: [TypeOrmModule.forFeature([UserRegistryApiKey]), IdentityModule, AuditModule],
  controllers: [ApiKeyController],
  providers: [ApiKeyRepository, ApiKeyCache, ApiKeyService],
  exports: [ApiKeyService, ApiKeyCache],
})
export class ApiKeysModule {}

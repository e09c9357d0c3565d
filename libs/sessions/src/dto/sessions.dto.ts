import { ApiProperty } from '@nestjs/swagger';

export class LoggedOutDto {
  @ApiProperty({ description: 'Always true: the cookies were deleted whatever the credential state.' })
  loggedOut!: true;
}

/** GET /api/ActiveSessions: how many users of the caller's tenant (the landlord's: every tenant) are signed in. */
export class ActiveSessionsDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Active users whose latest session started within the absolute session lifetime and was not ended since ' +
      '(logout, Revoke Sessions, a password change or reset); a user signed in on two devices counts once, and a ' +
      'session left idle past its 15-minute token is counted until its absolute end (the service keeps no token).',
  })
  count!: number;
  @ApiProperty({
    description: 'Sessions that started after this instant are counted (now minus the absolute lifetime).',
  })
  startedAfter!: string;
  @ApiProperty({ description: 'When the count was taken (ISO 8601, UTC).' })
  at!: string;
}

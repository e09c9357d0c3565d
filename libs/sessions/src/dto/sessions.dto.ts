import { ApiProperty } from '@nestjs/swagger';

export class LoggedOutDto {
  @ApiProperty({ description: 'Always true: the cookies were deleted whatever the credential state.' })
  loggedOut!: true;
}

import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SCHEME, BEARER_SCHEME, COOKIE_SCHEME } from '@app/common';

/** The OpenAPI document of the application: served at /swagger/json, and the console's typed client. */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Decisioning operations service')
    .setDescription(
      'Decisioning pipelines, their telemetry, and authentication, sessions and audit. Every error is an RFC 9457 problem; a refused request is a 400 whose errors name each field by its path. Input limits: JSON bodies up to 1 MiB, UTF-8, nested at most 64 levels; U+0000 and lone surrogates are refused anywhere, control characters in names; a repeated query parameter is refused; in a JSON body the last of two members with one name wins.',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, API_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .addCookieAuth(COOKIE_SCHEME, { type: 'apiKey', in: 'cookie', name: COOKIE_SCHEME }, COOKIE_SCHEME)
    .build();
  return SwaggerModule.createDocument(app, config);
}

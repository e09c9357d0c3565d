import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SCHEME, BEARER_SCHEME, COOKIE_SCHEME } from '@app/common';

/** The OpenAPI document of the application: served at /swagger/json, and the console's typed client. */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Decisioning operations service')
    .setDescription('Decisioning pipelines, their telemetry, and authentication, sessions and audit.')
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, API_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .addCookieAuth(COOKIE_SCHEME, { type: 'apiKey', in: 'cookie', name: COOKIE_SCHEME }, COOKIE_SCHEME)
    .build();
  return SwaggerModule.createDocument(app, config);
}

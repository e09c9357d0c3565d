import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  HttpCode,
  NestInterceptor,
  type Type,
  UseInterceptors,
} from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { etagOf } from './row-versions';

const ETAG_HEADER = {
  ETag: {
    description:
      'The record\'s version as a strong entity-tag (`"3"`): send it back in If-Match to change or delete only this version',
    schema: { type: 'string' },
  },
};
const LOCATION_HEADER = {
  Location: {
    description: 'The path of the new record (`<this path>/<guid>`)',
    schema: { type: 'string', format: 'uri-reference' },
  },
};

/** The path of the record a create made: the route's own path (its parameters filled in), then the guid. */
function createdPath(req: Request, guid: string): string {
  const route = (req as { route?: { path?: unknown } }).route;
  const template = typeof route?.path === 'string' ? route.path : req.path;
  const path = template
    .replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(String(req.params[name] ?? '')))
    .replace(/\/+$/, '');
  return `${path}/${encodeURIComponent(guid)}`;
}

/**
 * Writes what an answer of one record says about it in headers, from the record itself: its ETag (when it has
 * a `version`), and for a create its Location (when it has a `guid`). The handler returns the record; nothing
 * here reads the database. Express's own `etag` setting stays off (docs/decisions.md).
 */
class RecordHeaders implements NestInterceptor {
  constructor(private readonly created: boolean) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    return next.handle().pipe(
      map((value: unknown) => {
        if (typeof value === 'object' && value !== null && !res.headersSent) {
          const { version, guid } = value as { version?: unknown; guid?: unknown };
          if (typeof version === 'number') res.setHeader('ETag', etagOf(version));
          if (this.created && typeof guid === 'string') res.setHeader('Location', createdPath(req, guid));
        }
        return value;
      }),
    );
  }
}

const RECORD = new RecordHeaders(false);
const CREATED_RECORD = new RecordHeaders(true);

/** An answer of one versioned record (GET, PUT, an action on it): 200 with its ETag. */
export function RecordAnswer(type: Type, description?: string) {
  return applyDecorators(
    UseInterceptors(RECORD),
    ApiResponse({ status: 200, type, headers: ETAG_HEADER, ...(description ? { description } : {}) }),
  );
}

/**
 * The answer of a create: 201 with the new record, its Location and (a versioned record) its ETag. `etag`: the
 * record has a version.
 */
export function CreatedAnswer(type: Type, options: { etag?: boolean; description?: string } = {}) {
  return applyDecorators(
    HttpCode(201),
    UseInterceptors(CREATED_RECORD),
    ApiResponse({
      status: 201,
      type,
      headers: options.etag === false ? LOCATION_HEADER : { ...LOCATION_HEADER, ...ETAG_HEADER },
      description: options.description ?? 'Created',
    }),
  );
}

/** The `version` member of a versioned record's DTO: its row version, the ETag without its quotes. */
export const VersionProperty = () =>
  ApiProperty({
    type: 'integer',
    minimum: 1,
    description:
      'The row version: the ETag (`"<version>"`) of the record as answered; If-Match takes it back',
  });

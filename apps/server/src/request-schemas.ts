import type { INestApplication, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common/enums/request-method.enum';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { ParameterObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { type PropertyRules, validationRulesOf } from '@app/input-rules';

/** A route's request DTO: the operation it belongs to, and where the DTO is read from. */
interface RequestDto {
  method: string;
  path: string;
  type: Type;
  from: 'body' | 'query';
}

const joinPath = (...parts: unknown[]) =>
  `/${parts
    .filter((p): p is string => typeof p === 'string' && p !== '' && p !== '/')
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .join('/')}`.replace(/:(\w+)/g, '{$1}');

/** Every route's body and whole-query DTO classes, read from the controllers' route metadata. */
function requestDtos(app: INestApplication): RequestDto[] {
  const out: RequestDto[] = [];
  for (const module of app.get(ModulesContainer).values())
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const base: unknown = Reflect.getMetadata(PATH_METADATA, controller);
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
          string,
          { index: number; data?: unknown }
        >;
        const types = (Reflect.getMetadata('design:paramtypes', proto, name) ?? []) as unknown[];
        for (const [key, arg] of Object.entries(args)) {
          const kind = Number(key.split(':')[0]);
          const from =
            kind === (RouteParamtypes.BODY as number)
              ? 'body'
              : kind === (RouteParamtypes.QUERY as number) && arg.data === undefined
                ? 'query'
                : undefined;
          const type = types[arg.index];
          if (!from || typeof type !== 'function' || type === Object) continue;
          const path = joinPath(base, Reflect.getMetadata(PATH_METADATA, handler));
          out.push({ method: RequestMethod[method].toLowerCase(), path, type: type as Type, from });
        }
      }
    }
  return out;
}

/** One property's schema with what the validation enforces laid over what its decorator said. */
function withRules(schema: SchemaObject, rules: PropertyRules): SchemaObject {
  const out: SchemaObject = { ...schema, ...rules.value };
  if (rules.value.anyOf) delete out.type;
  // OpenAPI 3.0.3: a nullable enum lists null among its values.
  const values: unknown[] | undefined = out.enum;
  if (out.nullable && values && !values.includes(null)) out.enum = [...values, null];
  if (Object.keys(rules.items).length) out.items = { ...(schema.items ?? {}), ...rules.items };
  return out;
}

/** A body DTO's schema: each validated property as enforced, nothing else accepted (forbidNonWhitelisted). */
function applyToSchema(schema: SchemaObject, dto: Type): void {
  const properties = (schema.properties ??= {}) as Record<string, SchemaObject>;
  for (const [name, rules] of validationRulesOf(dto)) {
    properties[name] = withRules(properties[name] ?? {}, rules);
    if (!rules.optional && !(schema.required ?? []).includes(name))
      schema.required = [...(schema.required ?? []), name];
  }
  schema.additionalProperties = false;
}

/**
 * Lays the rules the ValidationPipe enforces over the request schemas of the document (validationRulesOf): each
 * body DTO's schema (components.schemas, by class name) and each whole-query DTO's parameters. The OpenAPI
 * decorators keep what only they say (descriptions, examples, defaults, nullable); types, formats, patterns,
 * lengths, bounds, enums and item rules come from the validation, so the document cannot state less or other
 * than the service enforces (the document must not promise more than is checked).
 */
export function applyRequestRules(document: OpenAPIObject, app: INestApplication): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  const done = new Set<Type>();
  for (const dto of requestDtos(app)) {
    if (dto.from === 'body') {
      const schema = schemas[dto.type.name];
      if (!schema)
        throw new Error(`the document has no schema ${dto.type.name} for ${dto.method} ${dto.path}`);
      if (!done.has(dto.type)) applyToSchema(schema, dto.type);
      done.add(dto.type);
      continue;
    }
    const operation = document.paths[dto.path]?.[dto.method as 'get'];
    for (const [name, rules] of validationRulesOf(dto.type)) {
      const parameter = (operation?.parameters ?? []).find(
        (p): p is ParameterObject => 'in' in p && p.in === 'query' && p.name === name,
      );
      if (!parameter) throw new Error(`${dto.method} ${dto.path} does not document query parameter ${name}`);
      parameter.schema = withRules((parameter.schema as SchemaObject | undefined) ?? {}, rules);
      parameter.required = !rules.optional;
    }
  }
}

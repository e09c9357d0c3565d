import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { ROUTE_ACCESS, RouteAccess } from '@app/common';
import { startTestApp, TestApp } from './support/test-app';

/** The short, written list of anonymous routes (spec: Credentials and precedence 2). */
const ANONYMOUS = [
  'GET /api/Ready',
  'POST /api/Authentication/ByUserNamePassword',
  'POST /api/Authentication/WirePasswordHash',
  'GET /api/Authentication/PasswordPublicKey',
].sort();

interface Route {
  route: string;
  access: RouteAccess | undefined;
}

/** Every route the app registers, with its access metadata, read from the controllers Nest loaded. */
function routesOf(t: TestApp): Route[] {
  const out: Route[] = [];
  const join = (...parts: string[]) =>
    '/' +
    parts
      .map((p) => p.replace(/^\/+|\/+$/g, ''))
      .filter(Boolean)
      .join('/');
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as unknown as { prototype: Record<string, unknown> } | null;
      if (!controller) continue;
      const base = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const access = (Reflect.getMetadata(ROUTE_ACCESS, handler) ??
          Reflect.getMetadata(ROUTE_ACCESS, controller)) as RouteAccess | undefined;
        out.push({ route: `${method} ${join(base, path)}`, access });
      }
    }
  }
  return out;
}

describe('route audit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('anonymous routes are exactly the written list', () => {
    const routes = routesOf(t);
    expect(routes.length).toBeGreaterThan(ANONYMOUS.length);
    const anonymous = routes.filter((r) => r.access?.kind === 'public').map((r) => r.route);
    expect(anonymous.sort()).toEqual(ANONYMOUS);
  });

  it('every other route answers 401 without a credential', async () => {
    const guid = '00000000-0000-4000-8000-000000000000';
    for (const { route } of routesOf(t).filter((r) => r.access?.kind !== 'public')) {
      const [method, path] = route.split(' ');
      const url = path.replace(/:[A-Za-z]+/g, guid);
      const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
      const res = await request(t.url)[verb](url).send({});
      expect(`${route} ${res.status}`).toBe(`${route} 401`);
    }
  });
});

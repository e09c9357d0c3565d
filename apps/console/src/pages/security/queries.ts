import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';

export type User = Schemas['UserDto'];
export type Role = Schemas['RoleDto'];
export type Tenant = Schemas['TenantDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyDto'];
export type PermissionEntry = Schemas['PermissionDto'];
export type RoleChoice = Schemas['RoleChoiceDto'];

/** Users a page of the Users list holds. */
export const USERS_PAGE = 50;

/** One page of a list as the service answers it: its items, the whole list's total, the next page's cursor. */
export interface ListPage<T> {
  items: T[];
  total: number;
  next: string | null;
}

/** Every item of a list, page after page by each page's `next` (the lists are bounded: 1 000 a page at most). */
async function everyItem<T>(page: (cursor: string | undefined) => Promise<ListPage<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    items.push(...answer.items);
    cursor = answer.next ?? undefined;
  } while (cursor !== undefined);
  return items;
}

/** Items a page of the whole-list reads asks for (the most a list gives). */
const WHOLE_LIST_PAGE = 1000;

/** Every query of the users the caller may administer (its tenant's; every tenant's for the landlord). */
export const USERS_KEY = ['security', 'users'] as const;

/** A page of those users whose name holds `search` (the service searches and pages: limit and cursor). */
export const usersPageQuery = (search: string, cursor: string | null) =>
  queryOptions({
    queryKey: [...USERS_KEY, 'page', search, cursor],
    queryFn: async (): Promise<ListPage<User>> => {
      const query = { limit: USERS_PAGE, ...(search ? { search } : {}), ...(cursor ? { cursor } : {}) };
      return (await unwrap(api.GET('/api/UserRegistry', { params: { query } }))).data;
    },
  });

/** The roles a user administrator may give, by name with their tenant's (no right to manage roles needed). */
export const assignableRolesQuery = queryOptions({
  queryKey: ['security', 'assignable-roles'],
  queryFn: (): Promise<RoleChoice[]> =>
    everyItem(
      async (cursor) =>
        (
          await unwrap(
            api.GET('/api/UserRegistry/AssignableRoles', {
              params: { query: { limit: WHOLE_LIST_PAGE, cursor } },
            }),
          )
        ).data,
    ),
});

export const userQuery = (guid: string) =>
  queryOptions({
    queryKey: [...USERS_KEY, guid],
    queryFn: async (): Promise<User> =>
      (await unwrap(api.GET('/api/UserRegistry/{guid}', { params: { path: { guid } } }))).data,
  });

export const rolesQuery = queryOptions({
  queryKey: ['security', 'roles'],
  queryFn: (): Promise<Role[]> =>
    everyItem(
      async (cursor) =>
        (
          await unwrap(
            api.GET('/api/RoleRegistry', { params: { query: { limit: WHOLE_LIST_PAGE, cursor } } }),
          )
        ).data,
    ),
});

export const permissionsQuery = queryOptions({
  queryKey: ['security', 'permissions'],
  queryFn: async (): Promise<PermissionEntry[]> =>
    (await unwrap(api.GET('/api/RoleRegistry/Permissions'))).data,
  staleTime: Infinity,
});

export const tenantsQuery = queryOptions({
  queryKey: ['security', 'tenants'],
  queryFn: (): Promise<Tenant[]> =>
    everyItem(
      async (cursor) =>
        (
          await unwrap(
            api.GET('/api/TenantRegistry', { params: { query: { limit: WHOLE_LIST_PAGE, cursor } } }),
          )
        ).data,
    ),
});

export const apiKeysQuery = (userGuid: string) =>
  queryOptions({
    queryKey: ['security', 'api-keys', userGuid],
    queryFn: (): Promise<ApiKey[]> =>
      everyItem(
        async (cursor) =>
          (
            await unwrap(
              api.GET('/api/UserRegistryApiKey', {
                params: { query: { userRegistryGuid: userGuid, limit: WHOLE_LIST_PAGE, cursor } },
              }),
            )
          ).data,
      ),
  });

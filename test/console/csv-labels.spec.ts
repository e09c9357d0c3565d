import { USER_LOGIN_GRID, USER_LOGOUT_GRID } from '@app/grid';
import { GRIDS } from '../../apps/console/src/pages/grids/declarations';

/**
 * The CSV export's header holds the labels the console shows (issue 40): the server's audit grid declarations
 * carry them (for the CSV writer), the console's declarations show them; this keeps the two in step.
 */
describe('the audit grids’ labels', () => {
  it.each([USER_LOGIN_GRID, USER_LOGOUT_GRID].map((g) => [g.name, g] as const))(
    '%s: the page’s labels are the CSV’s',
    (_name, def) => {
      const page = GRIDS.find((g) => g.name === def.name)!;
      expect(page.csv).toBe(true);
      const server = new Map([...def.columns, ...(def.derived ?? [])].map((c) => [c.name, c.label]));
      for (const column of page.columns)
        expect([column.key, server.get(column.key)]).toEqual([column.key, column.label]);
      // every column the CSV writes has a label of its own
      for (const [name, label] of server) expect([name, typeof label]).toEqual([name, 'string']);
    },
  );
});

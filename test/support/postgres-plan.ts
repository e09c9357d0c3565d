import type { DataSource } from 'typeorm';

/** A node of PostgreSQL's EXPLAIN (FORMAT JSON), as far as the plan tests read it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan, the root first. */
export const planNodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(planNodes)];

/** The nodes of the plan PostgreSQL makes for this statement (EXPLAIN without ANALYZE: nothing runs). */
export async function explain(ds: DataSource, sql: string, params: unknown[]): Promise<PlanNode[]> {
  const [row] = await ds.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    params,
  );
  return planNodes(row['QUERY PLAN'][0].Plan);
}

import jsonLogic, { RulesLogic } from 'json-logic-js';

/**
 * The JSON Logic operations a rule may use. `log` (console output) and `method` (calls a method of a
 * value) are left out on purpose: a condition is data, never code.
 */
const ALLOWED = new Set([
  'var',
  'missing',
  'missing_some',
  'if',
  '?:',
  '==',
  '===',
  '!=',
  '!==',
  '!',
  '!!',
  'or',
  'and',
  '>',
  '>=',
  '<',
  '<=',
  '%',
  'in',
  'cat',
  'substr',
  '+',
  '-',
  '*',
  '/',
  'min',
  'max',
  'merge',
  'map',
  'filter',
  'reduce',
  'all',
  'none',
  'some',
]);
const FORBIDDEN_NAME = /(^|\.)(__proto__|constructor|prototype)(\.|$)/;
const MAX_NODES = 2_000;

/** A parsed, checked condition. */
export type RuleCondition = RulesLogic;

/** Parses and checks a condition; returns the error message when it is not acceptable. */
export function parseRuleCondition(text: string): RuleCondition | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'condition must be valid JSON (a JSON Logic expression)';
  }
  const problem = check(parsed, { nodes: 0 });
  return problem ?? (parsed as RuleCondition);
}

function check(node: unknown, budget: { nodes: number }): string | undefined {
  if (++budget.nodes > MAX_NODES) return `condition is larger than ${MAX_NODES} nodes`;
  if (Array.isArray(node)) {
    for (const item of node) {
      const p = check(item, budget);
      if (p) return p;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object') return undefined;
  const keys = Object.keys(node);
  if (keys.length !== 1) return 'each JSON Logic operation is an object with exactly one operator';
  const op = keys[0];
  if (!ALLOWED.has(op)) return `the operator ${op} is not allowed in a condition`;
  const args = (node as Record<string, unknown>)[op];
  if (op === 'var') {
    const name = Array.isArray(args) ? (args[0] as unknown) : args;
    if (typeof name === 'string' && FORBIDDEN_NAME.test(name)) return `the variable ${name} is not allowed`;
  }
  return check(args, budget);
}

/** Evaluates a checked condition over the extracted fields; an evaluation error counts as false. */
export function evaluateRuleCondition(condition: RuleCondition, fields: Record<string, unknown>): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(condition, fields));
  } catch {
    return false;
  }
}

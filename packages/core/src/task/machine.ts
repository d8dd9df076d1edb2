import { IllegalTransitionError } from '../errors';

/**
 * A finite state machine given as a table: for each state, the events it
 * accepts and the state each one leads to. Anything not in the table is
 * forbidden and throws IllegalTransitionError, so a store adapter that routes
 * every write through `next` can never persist an illegal jump.
 */
export type TransitionTable<S extends string, E extends string> = Record<S, Partial<Record<E, S>>>;

export interface StateMachine<S extends string, E extends string> {
  readonly name: string;
  readonly states: readonly S[];
  readonly events: readonly E[];
  next(state: S, event: E): S;
  can(state: S, event: E): boolean;
  isTerminal(state: S): boolean;
}

export function defineMachine<S extends string, E extends string>(
  name: string,
  states: readonly S[],
  events: readonly E[],
  table: TransitionTable<S, E>,
): StateMachine<S, E> {
  // Own properties only: an event or state named like an Object.prototype member ('constructor', '__proto__') is not in the table.
  const lookup = (state: S, event: E): S | undefined => {
    const row = Object.hasOwn(table, state) ? table[state] : undefined;
    return row !== undefined && Object.hasOwn(row, event) ? row[event] : undefined;
  };
  return {
    name,
    states,
    events,
    next(state, event) {
      const to = lookup(state, event);
      if (to === undefined) throw new IllegalTransitionError(name, state, event);
      return to;
    },
    can(state, event) {
      return lookup(state, event) !== undefined;
    },
    isTerminal(state) {
      return Object.keys(table[state] ?? {}).length === 0;
    },
  };
}

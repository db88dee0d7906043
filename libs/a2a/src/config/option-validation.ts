/**
 * The one way options are checked: each layer declares its options as a class-validator DTO, and
 * {@link optionProblems} lists every problem at once, each as `path: what to do`, never quoting a
 * value (an option may be a secret put in the wrong place).
 *
 * Plain options become DTO instances here rather than through class-transformer, which copies every
 * nested object by calling its constructor: options hold live objects (an ioredis client, key
 * objects) that must be looked at, never rebuilt. Only the properties marked {@link Nested} or
 * {@link NestedList} are turned into their DTOs; everything else is checked as given.
 */
import { ValidateBy, ValidateNested, validateSync, type ValidationArguments, type ValidationError } from 'class-validator';
import { isPlainObject } from '../protocol/json-value.js';

/** A DTO class: its properties carry the checks. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OptionsDto = abstract new (...args: any[]) => object;

/**
 * A DTO whose problems name the object they are about, e.g. ` (peer "research")` after the
 * property path. Not used for unknown keys (`label` may rely on checked properties).
 */
export interface LabelledOptionsDto extends OptionsDto {
  labelOf(instance: object, property: string): string;
}

const NESTED = new Map<Function, Map<string, { type: () => OptionsDto; each: boolean }>>();
const PARENT = Symbol('options parent');
let checkCount = 0;

/** Option names that say "I hold a secret": refused wherever an option is not expected. */
const SECRET_LIKE_KEY = /token|secret|passw|pwd|key|auth|bearer|cookie|header|credential|session|signature/i;

/**
 * Every problem of `value` as `dto` describes it, prefixed with `path` (`push`, `peers[0]`...).
 * Unknown keys are problems too.
 */
export function optionProblems(dto: OptionsDto, value: unknown, path = ''): string[] {
  if (!isPlainObject(value)) return [`${path || 'options'}: must be an object`];
  const instance = toDto(dto, value) as object;
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    // every check runs (a nested object's problems are listed beside its own); flatten keeps a property's first
    stopAtFirstError: false,
    forbidUnknownValues: false,
    validationError: { target: true, value: false },
  });
  return flatten(errors, path);
}

/** The object holding this one in the options (`peers[i]` → the outbound options), when checks need a sibling. */
export function parentOf<T = Record<string, unknown>>(instance: object): T | undefined {
  return (instance as { [PARENT]?: T })[PARENT];
}

/**
 * A nested options object, checked by its own DTO. `notObject` is the problem when it is not an
 * object; undefined is fine.
 */
export function Nested(type: () => OptionsDto, notObject: string): PropertyDecorator {
  return (target, key) => {
    record(target.constructor, String(key), type, false);
    ValidateNested({ message: notObject })(target, key);
  };
}

/** A list of nested options objects, each checked by its DTO. */
export function NestedList(type: () => OptionsDto, messages: { notList: string; notObject: string }): PropertyDecorator {
  return (target, key) => {
    record(target.constructor, String(key), type, true);
    Check((value) => Array.isArray(value), messages.notList)(target, key);
    ValidateNested({ each: true, message: messages.notObject })(target, key);
  };
}

/**
 * A check of one property: `test` gets the value and the object holding it. Undefined passes (the
 * option is optional) unless `evenWhenMissing`. `message` may hold several problems, one a line; a
 * line starting with `[i]` or `.key` names a place inside the property (`[1]: not a delay`).
 */
export function Check(
  test: (value: unknown, object: Record<string, unknown>) => boolean,
  message: string | ((value: unknown, object: Record<string, unknown>) => string),
  { evenWhenMissing = false } = {},
): PropertyDecorator {
  return ValidateBy({
    // one name per check: class-validator keys a property's failures by it, in the order they ran
    name: `a2aCheck${++checkCount}`,
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        (!evenWhenMissing && value === undefined) || test(value, args!.object as Record<string, unknown>),
      defaultMessage: (args?: ValidationArguments) =>
        typeof message === 'string' ? message : message(args!.value, args!.object as Record<string, unknown>),
    },
  });
}

/** An integer from `min` (to `max`), in `unit` when one is named. */
export function IntegerOption(min: number, max?: number, unit?: string): PropertyDecorator {
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  return Check((value) => isInteger(value, min, max), `must be an integer ${range}${unit === undefined ? '' : ` (${unit})`}`);
}

/** A number from `min` to `max`. */
export function NumberOption(min: number, max: number): PropertyDecorator {
  return Check((value) => typeof value === 'number' && value >= min && value <= max, `must be a number from ${min} to ${max}`);
}

export const BooleanOption = (): PropertyDecorator => Check((value) => typeof value === 'boolean', 'must be true or false');

/** A string matching `pattern` (any non-empty string without one). */
export function StringOption(message: string, pattern?: RegExp): PropertyDecorator {
  return Check((value) => typeof value === 'string' && (pattern === undefined ? value !== '' : pattern.test(value)), message);
}

/** A list of non-empty strings. */
export const StringListOption = (): PropertyDecorator =>
  Check((value) => Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== ''), 'must be a list of non-empty strings');

/** An absolute http(s) URL. */
export const HttpUrlOption = (): PropertyDecorator => Check(isHttpUrl, 'must be an absolute http or https URL');

export function isInteger(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The problem of an option nobody declared: a secret in the wrong place, or a typo. */
function unknownOptionText(key: string): string {
  return SECRET_LIKE_KEY.test(key)
    ? "literal secrets are not accepted in the options; name a credential instead (credential: 'research-token'), which the CredentialResolver turns into the secret at call time"
    : 'unknown option';
}

function record(owner: Function, key: string, type: () => OptionsDto, each: boolean): void {
  if (!NESTED.has(owner)) NESTED.set(owner, new Map());
  NESTED.get(owner)!.set(key, { type, each });
}

/** The nested properties of `dto`, its base classes' included. */
function nestedOf(dto: Function): Array<[string, { type: () => OptionsDto; each: boolean }]> {
  const found: Array<[string, { type: () => OptionsDto; each: boolean }]> = [];
  for (let c: Function | null = dto; c && c !== Object; c = Object.getPrototypeOf(c)) found.push(...(NESTED.get(c) ?? []));
  return found;
}

function toDto(dto: OptionsDto, value: unknown, parent?: object): unknown {
  if (!isPlainObject(value)) return value;
  // no constructor call: class fields would otherwise appear as keys set to undefined
  const instance = Object.assign(Object.create(dto.prototype) as Record<string, unknown>, value);
  if (parent) Object.defineProperty(instance, PARENT, { value: parent });
  for (const [key, { type, each }] of nestedOf(dto)) {
    const nested = value[key];
    if (each && Array.isArray(nested)) instance[key] = nested.map((item) => toDto(type(), item, instance));
    else if (!each) instance[key] = toDto(type(), nested, instance);
  }
  return instance;
}

function join(path: string, segment: string): string {
  if (path === '') return segment.replace(/^\./, '');
  return segment.startsWith('[') || segment.startsWith('.') ? `${path}${segment}` : `${path}.${segment}`;
}

/**
 * One problem per line of each property's first failed check (the later ones follow from it),
 * then the problems inside it (a nested object's).
 */
function flatten(errors: ValidationError[], path: string): string[] {
  return errors.flatMap((error) => {
    const place = join(path, Array.isArray(error.target) ? `[${error.property}]` : error.property);
    const [kind, text] = Object.entries(error.constraints ?? {})[0] ?? [];
    if (kind === 'whitelistValidation') return [`${place}: ${unknownOptionText(error.property)}`];
    const dto = error.target?.constructor as Partial<LabelledOptionsDto> | undefined;
    const label = text !== undefined && typeof dto?.labelOf === 'function' ? dto.labelOf(error.target!, error.property) : '';
    const own = (text ?? '')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const inside = /^((?:\[[^\]]*\]|\.[A-Za-z_$][\w$]*)+): /.exec(line);
        return inside ? `${join(place, inside[1])}${label}: ${line.slice(inside[0].length)}` : `${place}${label}: ${line}`;
      });
    return [...own, ...flatten(error.children ?? [], place)];
  });
}

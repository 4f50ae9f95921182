/**
 * How the Go clients (the Terraform providers) take a JSON answer apart, for the fields they read.
 * `encoding/json` refuses a value of the wrong JSON type for a typed field (a string for an
 * `int64`, a fraction for an `int`), and the providers' own types add rules of their own; Telmate's
 * library reads maps with unchecked type assertions (`v.(float64)`), which panic on any other type.
 * A field of the wrong type is a test failure here, named by its path.
 */
export type GoType =
  /** `int`, `int64` (also behind a pointer): a JSON number without a fraction. */
  | 'int'
  /** `float64`, or Telmate's assertion `.(float64)`: any JSON number. */
  | 'float64'
  /** `string`, or `.(string)`: a JSON string. */
  | 'string'
  /** bpg's `CustomBool`: compares the raw JSON text with `1` and `true`, so the string `"1"` would read as false. */
  | 'CustomBool'
  /** bpg's `CustomInt`, `CustomInt64`, `CustomFloat64`: a JSON number or a string holding one. */
  | 'numeric'
  /** A property string or list that the client parses itself (bpg's `CustomAgent`, `CustomStorageDevice`, ...): a JSON string. */
  | 'text'
  /** `.(map[string]interface{})`: a JSON object. */
  | 'object'
  /** `interface{}`: anything. */
  | 'any';

/** The fields a client decodes, by name, and by pattern for numbered keys (`net0`, `scsi1`). */
export interface GoStruct {
  readonly fields: Readonly<Record<string, GoType>>;
  readonly patterns?: readonly (readonly [RegExp, GoType])[];
}

function fits(type: GoType, value: unknown): boolean {
  switch (type) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float64':
      return typeof value === 'number';
    case 'string':
    case 'text':
      return typeof value === 'string';
    case 'CustomBool':
      return value === 0 || value === 1 || value === true || value === false;
    case 'numeric':
      return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'any':
      return true;
  }
}

/** The Go type that `struct` gives `key`, if it decodes it. */
function typeOf(struct: GoStruct, key: string): GoType | undefined {
  return struct.fields[key] ?? struct.patterns?.find(([pattern]) => pattern.test(key))?.[1];
}

/**
 * Decodes `value` (a JSON object) as `struct`: every field the client reads must have its type
 * (absent fields are fine: pointers and `omitempty`). Throws naming every field that does not.
 */
export function decodeGo<T = Record<string, unknown>>(struct: GoStruct, value: unknown, where: string): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${where}: expected a JSON object, got ${JSON.stringify(value)}`);
  const wrong = Object.entries(value as Record<string, unknown>).flatMap(([key, field]) => {
    const type = typeOf(struct, key);
    return type === undefined || fits(type, field) ? [] : [`${key} is ${JSON.stringify(field)}, not a ${type}`];
  });
  if (wrong.length > 0) throw new Error(`${where}: the client cannot decode ${wrong.join('; ')}`);
  return value as T;
}

/** Decodes a JSON array whose elements are `struct`s. */
export function decodeGoList<T = Record<string, unknown>>(struct: GoStruct, value: unknown, where: string): T[] {
  if (!Array.isArray(value)) throw new Error(`${where}: expected a JSON array, got ${JSON.stringify(value)}`);
  return value.map((element, index) => decodeGo<T>(struct, element, `${where}[${index}]`));
}

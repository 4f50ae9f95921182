import type { SeededRandom } from './seeded-random.js';

/** A value as a client can send it: a form carries strings (an array is the key repeated), JSON any of these. */
export type WireValue = string | number | boolean | null | readonly WireValue[] | { readonly [key: string]: WireValue };

/** What the fuzzer sends where a parameter is wanted, by family; each family is tried on every endpoint. */
export const HOSTILE_VALUES: Readonly<Record<string, readonly WireValue[]>> = {
  wrongType: ['abc', true, false, null, { a: 1 }, 1.5, '1.5', 'yes'],
  extremeNumber: [
    -1,
    0,
    2 ** 31,
    '2147483648',
    '9007199254740993',
    9007199254740992,
    1e308,
    '1e308',
    '-1e308',
    'NaN',
    'Infinity',
    '-0',
    '0x10',
    '1e3',
    ' 1',
  ],
  longString: ['a'.repeat(65536), `${'x'.repeat(300)}@pve`, `local:${'v'.repeat(5000)}`],
  controlCharacter: ['a\u0000b', '\u001b[31mred', 'del\u007f', 'line\nbreak', '\u0000'],
  traversal: ['../../etc/passwd', '%2e%2e/%2e%2e/etc/passwd', '..', '/etc/shadow', 'local:../../../etc/passwd', 'local:iso/../../x.iso'],
  propertyString: ['a=b,,c', '=', ',', 'size=1,size=2', 'bogus=1', 'local:1,bogus=yes', 'virtio,bridge=', 'name=x,name=y', ';', 'a=b=c'],
  empty: ['', ' '],
  array: [['a', 'b'], [], ['100', '101'], [1, 2]],
  unicode: ['é', '😀', '\u202e', '\ufeff', 'a\u2028b'],
  injection: ["' OR '1'='1", '"; DROP TABLE users; --', '$(reboot)', '`id`', '<script>', '%00', '\\\\'],
};

const FAMILIES = Object.keys(HOSTILE_VALUES);

/** One hostile value: a family picked at random, then one of its values. */
export function hostileValue(random: SeededRandom): WireValue {
  return random.pick(HOSTILE_VALUES[random.pick(FAMILIES)] ?? []);
}

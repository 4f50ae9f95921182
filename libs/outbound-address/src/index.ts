export { downloadRefusal, literalHost, networkList, refusedKind, type AddressPolicy } from './address-policy.js';
export { AddressRefused, checkedAddress, pinnedLookup, type Address, type Refusal } from './checked-address.js';

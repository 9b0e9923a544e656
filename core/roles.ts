/**
 * A device's role, least to most: a `viewer` watches, the `default` role also acts on agents (what
 * every device could do before roles), an `owner` also manages devices. Stored with the device
 * (storage/devices.ts), so it lives apart from the plugin types that the device store's users import.
 */
export type Role = 'viewer' | 'default' | 'owner'
export const ROLES: readonly Role[] = ['viewer', 'default', 'owner']

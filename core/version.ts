/**
 * API level reported by `GET /info` as `version`. Clients gate features on it.
 * 6: branch preflight (/branch-info, /branch-delete), /ports.
 * 7: POST /approve takes `option`, POST /send takes `seq` (older bridges ignore both).
 * Raise it when an endpoint is added or a request gains a field.
 */
export const API_VERSION = 7

export const BRIDGE_VERSION = '0.1.0'

/** herdr's wire protocol this bridge was built and tested against (herdr 0.8.x speaks 19–20). */
export const HERDR_PROTOCOL = 20

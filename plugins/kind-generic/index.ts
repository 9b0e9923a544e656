/**
 * kind-generic: the card of any kind without a screen summary of its own — the last readable
 * lines of the screen, `parsed:false`, never a `blocked`. Without it such panes get a bare card.
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import generic from './screen.ts'

export default defineBridgePlugin({ name: 'kind-generic', agentKinds: [generic] })

import { definePlugin } from '../../core/plugin.ts'

export default definePlugin({ name: 'events' })

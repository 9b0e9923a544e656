// Loaded on demand (a separate chunk): xterm.js is most of the app's weight and only the
// terminal view needs it.
import '@xterm/xterm/css/xterm.css'
export { Terminal } from '@xterm/xterm'
export { FitAddon } from '@xterm/addon-fit'

import { render } from 'preact'
import './style.css'
import './shell.css'
import { html } from './ui.ts'
import { App } from './app.ts'
import { PUSH_SW, pushOn } from './push.ts'

render(html`<${App} />`, document.getElementById('app')!)

if ('serviceWorker' in navigator && (location.protocol === 'https:' || location.hostname === 'localhost' || location.hostname === '127.0.0.1')) {
  // One worker per scope: once push is on, the push worker (which includes /sw.js) stays.
  navigator.serviceWorker.register(pushOn() ? PUSH_SW : '/sw.js', { scope: '/' }).catch(() => {
    /* installability is optional */
  })
}

import { launch } from '/work/main/tests/web/browser.ts'
const b = await launch()
await b.page.goto('data:text/html,<h1>hi</h1>')
console.log(await b.page.textContent('h1'))
await b.close()

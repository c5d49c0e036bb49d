/** Entry of the console bundle (dist/console/app.js): mounts the app on #app. */
import { render } from 'preact';
import { App } from './App.tsx';

render(<App />, document.getElementById('app')!);

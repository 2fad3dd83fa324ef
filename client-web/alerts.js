// client-web/alerts.js: "your move" told outside the page's text: the
// tab's icon (favicon.svg, favicon-move.svg: the same with a dot), and,
// when the reader asks for them (off by default, remembered in this
// browser's localStorage), a short beep (WebAudio, no sound file) and a
// desktop notification (asked permission for only when its box is ticked).

const SOUND_KEY = 'brigade.alert.sound';
const NOTIFY_KEY = 'brigade.alert.notify';

function remembered(key) {
  try { return window.localStorage.getItem(key) === '1'; } catch { return false; }
}

function remember(key, on) {
  try {
    if (on) window.localStorage.setItem(key, '1');
    else window.localStorage.removeItem(key);
  } catch { /* storage off */ }
}

export class Alerts {
  /* icon: the page's <link rel="icon">; sound, notify: the two checkboxes;
   * say(text): the page's live region (why a notification cannot be shown). */
  constructor({ icon, sound, notify, say }) {
    this.icon = icon;
    this.sound = sound;
    this.notify = notify;
    this.say = say || (() => {});
    this.audio = null;
    this.moving = false;
    sound.checked = remembered(SOUND_KEY);
    notify.checked = remembered(NOTIFY_KEY) && typeof Notification !== 'undefined' && Notification.permission === 'granted';
    sound.addEventListener('change', () => {
      remember(SOUND_KEY, sound.checked);
      // A click is when a browser lets a page start its audio.
      if (sound.checked) this.beep();
    });
    notify.addEventListener('change', () => this.askNotify());
  }

  async askNotify() {
    const box = this.notify;
    if (!box.checked) { remember(NOTIFY_KEY, false); return; }
    if (typeof Notification === 'undefined') {
      box.checked = false;
      this.say('This browser shows no desktop notifications.');
      return;
    }
    let permission = Notification.permission;
    if (permission === 'default') {
      try { permission = await Notification.requestPermission(); } catch { permission = 'denied'; }
    }
    box.checked = permission === 'granted';
    remember(NOTIFY_KEY, box.checked);
    if (!box.checked) this.say('The browser does not allow this page notifications: allow them in its site settings to be told.');
  }

  // A short two-tone beep, quiet.
  beep() {
    try {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return;
      if (!this.audio) this.audio = new Context();
      const audio = this.audio;
      if (audio.state === 'suspended') audio.resume().catch(() => {});
      const gain = audio.createGain();
      gain.gain.value = 0.08;
      gain.connect(audio.destination);
      [[660, 0], [880, 0.16]].forEach(([hertz, at]) => {
        const tone = audio.createOscillator();
        tone.frequency.value = hertz;
        tone.connect(gain);
        tone.start(audio.currentTime + at);
        tone.stop(audio.currentTime + at + 0.13);
      });
    } catch { /* no audio: the title and the icon still say it */ }
  }

  /* moving: it is this page's move (or the umpire's ruling); `words`: what
   * a notification says. The icon follows; the beep and the notification
   * come once, when it becomes the reader's move. */
  update(moving, words) {
    if (this.icon) this.icon.setAttribute('href', moving ? 'favicon-move.svg' : 'favicon.svg');
    const began = moving && !this.moving;
    this.moving = moving;
    if (!began) return;
    if (this.sound.checked) this.beep();
    if (this.notify.checked && typeof Notification !== 'undefined' && Notification.permission === 'granted' &&
        (document.hidden || !document.hasFocus())) {
      try {
        const note = new Notification('Brigade: your move', { body: words, tag: 'brigade-move' });
        note.onclick = () => { window.focus(); note.close(); };
      } catch { /* a browser that shows them only from a service worker */ }
    }
  }
}

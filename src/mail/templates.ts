import type { MailMessage } from './mailer.ts'

type Mail = Omit<MailMessage, 'to'>

/** "15 minutes", "1 hour", "3 days": how long a link works, as a person would say it. */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ]
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size
      return `${count} ${name}${count === 1 ? '' : 's'}`
    }
  }
  return `${seconds} seconds`
}

const signature = '\n\nThe Civic Survey team\n'

export function confirmEmailMail(link: string, lifetime: number): Mail {
  return {
    subject: 'Confirm your e-mail address for Civic Survey',
    text:
      'Hello,\n\n' +
      'Please confirm that this is your e-mail address by opening this link:\n\n' +
      `${link}\n\n` +
      `This link works once and expires in ${duration(lifetime)}. ` +
      'If you did not sign up for Civic Survey or change your address, you can ignore this message.' +
      signature,
  }
}

export function passwordResetMail(link: string, lifetime: number): Mail {
  return {
    subject: 'Choose a new Civic Survey password',
    text:
      'Hello,\n\n' +
      'Someone, hopefully you, asked to reset the password of the Civic Survey account with this address. ' +
      'To choose a new password, open this link:\n\n' +
      `${link}\n\n` +
      `This link works once and expires in ${duration(lifetime)}. ` +
      'If you did not ask for it, ignore this message: your password stays as it is.' +
      signature,
  }
}

export function signInLinkMail(link: string, lifetime: number): Mail {
  return {
    subject: 'Your Civic Survey sign-in link',
    text:
      'Hello,\n\n' +
      'Open this link to sign in to Civic Survey:\n\n' +
      `${link}\n\n` +
      `This link works once and expires in ${duration(lifetime)}. ` +
      'If you did not ask to sign in, ignore this message: nobody can use it without this mailbox.' +
      signature,
  }
}

/** The e-mail digest: each notification with its link, oldest first. */
export function digestMail(username: string, frequency: 'daily' | 'weekly', items: { message: string; link: string | null }[]): Mail {
  const lines = items.map((item) => `- ${item.message}${item.link ? `\n  ${item.link}` : ''}`).join('\n')
  return {
    subject: `Your ${frequency} Civic Survey digest: ${items.length} new notification${items.length === 1 ? '' : 's'}`,
    text:
      `Hello ${username},\n\n` +
      `Here is what happened since your last digest:\n\n${lines}\n\n` +
      'Choose what reaches you, and how often, in your notification settings.' +
      signature,
  }
}

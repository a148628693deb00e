import nodemailer from "nodemailer";

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; resolves with the server's reply id or rejects with its error. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<string>;
}

/** SMTP through nodemailer; the URL carries host, port, TLS and credentials (smtp:// or smtps://). */
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      const info = await transport.sendMail(mail);
      return String(info.messageId ?? "");
    },
  };
}

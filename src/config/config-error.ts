/** A bad setting. The message names the setting and never carries a secret's value. */
export class ConfigError extends Error {
  readonly setting: string;

  constructor(setting: string, problem: string) {
    super(`Invalid configuration: ${setting} ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

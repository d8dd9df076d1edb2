import { Component, type ErrorInfo, type ReactNode } from 'react';

/** Keeps a page's bug from blanking the whole console: the page says what broke, the bar and navigation stay. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error !== null) this.setState({ error: null });
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('console page failed', error, info.componentStack);
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="banner error" role="alert">
        This page failed: {this.state.error.message}. Other pages still work; reloading may help.
      </div>
    );
  }
}

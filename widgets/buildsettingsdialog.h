#pragma once

// Edits BuildSettings: backend, custom command, Nix options and remote builders, concurrency,
// publishing organisation, the local nixpkgs sources evaluation uses. Presents only; the window
// persists what it returns.

#include "builds/buildercheck.h"
#include "builds/buildsettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace rg {

class BuildSettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit BuildSettingsDialog(const BuildSettings& settings, QWidget* parent = nullptr);

    BuildSettings settings() const;

    QPlainTextEdit* nixpkgsSourcesEdit() const { return m_sources; }
    QLineEdit* defaultNixpkgsEdit() const { return m_defaultNixpkgs; }

    // Not while a builder is malformed or a source line is not REV=PATH.
    void accept() override;

    // What Test Connections found, one line per builder; the button is enabled again.
    void showBuilderHealth(const QList<BuilderHealth>& health);

signals:
    // Test Connections: the builders as typed, to be checked by whoever owns the processes.
    void builderCheckRequested(const QString& builders);

private:
    void updateEnabled();
    void createBuilderFields();
    void growToFit();
    QWidget* createSourcesBox();

    BuildSettings m_initial; // keeps the fields this dialog does not show
    QComboBox* m_backend = nullptr;
    QLineEdit* m_customCommand = nullptr;
    QSpinBox* m_concurrency = nullptr;
    QPlainTextEdit* m_builders = nullptr;
    QLabel* m_buildersProblem = nullptr;
    QPushButton* m_testBuilders = nullptr;
    QLabel* m_builderHealth = nullptr;
    QSpinBox* m_maxJobs = nullptr;
    QLineEdit* m_store = nullptr;
    QPlainTextEdit* m_nixOptions = nullptr;
    QLineEdit* m_publishOrg = nullptr;
    QCheckBox* m_verify = nullptr;
    QPlainTextEdit* m_sources = nullptr;
    QLineEdit* m_defaultNixpkgs = nullptr;
    QLabel* m_sourcesProblem = nullptr;
};

} // namespace rg

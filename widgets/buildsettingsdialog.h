#pragma once

// Edits BuildSettings: backend, custom command, Nix options, concurrency, publishing
// organisation, the remote builders (a table with a field per column, and the same value as
// Nix's text), the local nixpkgs sources evaluation uses. Presents only; the window persists
// what it returns.

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
class QTableView;

namespace rg {

class BuilderTableModel;

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

    // What Test Connections found so far, one line per builder ("asking" for one yet to answer)
    // and in the table's Health column; the button is enabled again once all have answered.
    void showBuilderHealth(const QList<BuilderHealth>& health);
    // What the builds' own check found last, in the Health column only.
    void setBuilderHealth(const QList<BuilderHealth>& health);
    // What the recipes about to be built need of a machine (`who` names them: "the 3 selected
    // recipes"), as Nix's evaluation said; a warning names any feature no builder offers.
    void setRequirements(const QString& who, const QString& system, const QStringList& features);

signals:
    // Test Connections: the builders as typed, to be checked by whoever owns the processes.
    void builderCheckRequested(const QString& builders);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updateEnabled();
    QWidget* createBuildersBox();
    void connectBuildersBox(QPushButton* add, QPushButton* remove);
    void syncBuilders(bool fromText);
    void updateFeatureWarning();
    void growToFit();
    void widenToTable();
    QWidget* createSourcesBox();

    BuildSettings m_initial; // keeps the fields this dialog does not show
    QComboBox* m_backend = nullptr;
    QLineEdit* m_customCommand = nullptr;
    QSpinBox* m_concurrency = nullptr;
    BuilderTableModel* m_builderTable = nullptr;
    QTableView* m_builderView = nullptr;
    bool m_syncing = false; // the table and the text are being made to agree
    QPlainTextEdit* m_builders = nullptr;
    QLabel* m_featureWarning = nullptr;
    QString m_requiredBy;
    QString m_requiredSystem;
    QStringList m_requiredFeatures;
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
